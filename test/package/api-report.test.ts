import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm run api:check` (in .ci/run, after the build) compares each report with the built declarations;
// these checks need no build and say which report is missing or carries something that is not surface.
const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const reports = readdirSync(join(root, 'api')).filter((name) => name.endsWith('.api.md'));

describe('the API report (api/*.api.md)', () => {
  it('has one report per entry point in package.json exports, and no other', () => {
    const expected = Object.keys(manifest.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => `${subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-')}.api.md`);
    expect(reports.sort()).toEqual(expected.sort());
  });

  it.each(reports)('%s names no built file, whose hashed name and line move with any edit', (report) => {
    const text = readFileSync(join(root, 'api', report), 'utf8');
    expect(text).not.toMatch(/dist\//);
    expect(text).not.toMatch(/\.d\.ts:\d+/);
    expect(text).toContain('## API Report File for "rest-conventions"');
  });

  // A type a public signature uses is exported by that entry point or by the one that owns it (the
  // report then notes `// Uses "X" from ...`); API Extractor warns of one no entry point exports.
  // Left: the two type-level helpers inside `LayersAdd`'s definition, which no user writes.
  const unexportedHelpers = ['AddsOf', 'UnionToIntersection'];

  it.each(reports)('%s uses no type that no entry point exports', (report) => {
    const text = readFileSync(join(root, 'api', report), 'utf8');
    const forgotten = [...text.matchAll(/\(ae-forgotten-export\) The symbol "([^"]+)"/g)].map((m) => m[1]!);
    expect(forgotten.filter((name) => !unexportedHelpers.includes(name))).toEqual([]);
  });
});
