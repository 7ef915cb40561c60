import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|mts|cts|js|mjs|cjs|json)$/.test(entry.name) ? [path] : [];
  });
}

// Built from parts so that this file does not match itself.
const outside = ['..', 'shared'].join('/');
const outsideWin = ['..', 'shared'].join('\\');
const envSchemaDir = ['SCHEMA', 'DIR'].join('_');

describe('the repository stands alone', () => {
  it('nothing in src, test, examples or bench reaches for a folder beside the checkout', () => {
    const offenders = ['src', 'test', 'examples', 'bench']
      .flatMap((dir) => filesUnder(join(root, dir)))
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return (
          text.includes(outside) ||
          text.includes(outsideWin) ||
          text.includes(envSchemaDir) ||
          /join\([^)]*'\.\.',\s*'\.\.',\s*'\.\.',\s*'shared'/.test(text)
        );
      })
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('the official schemas the tests validate against live in the repository', () => {
    const dir = join(root, 'test', 'fixtures', 'schemas');
    for (const name of ['jsonapi-1.0.schema.json', 'problem-details.schema.json']) {
      const schema = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      expect(schema.$schema, name).toMatch(/json-schema\.org/);
    }
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/jsonapi\.org[\s\S]*RFC 9457/);
  });
});
