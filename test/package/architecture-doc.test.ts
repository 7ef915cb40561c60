import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryPoints, SUBPATHS } from '../../build/entries.js';
import { moduleExports } from '../support/module-exports.js';
import { typeScriptFilesUnder } from '../support/source-files.js';

// docs/architecture.md states the size of the public root and of the largest source file: measured
// here from the source, so the page fails this test as soon as it is stale.

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** What each entry point exports, values and types, as the compiler resolves them (one program). */
function entryExports() {
  const entries = entryPoints();
  const files: Record<string, string> = { 'rest-conventions': join(root, entries.index!) };
  for (const subpath of SUBPATHS)
    files[`rest-conventions/${subpath}`] = join(root, entries[`${subpath}/index`]!);
  return moduleExports(files);
}

describe('docs/architecture.md', () => {
  const measured = entryExports();

  it("states the root's export count", () => {
    const values = measured['rest-conventions']!.values.length;
    const types = measured['rest-conventions']!.types.length;
    // A root a newcomer can hold: a few dozen names (docs/api.md), not every primitive.
    expect(values).toBeGreaterThan(0);
    expect(values + types).toBeLessThanOrEqual(50);
    expect(page).toContain(
      `The root, \`rest-conventions\`, exports ${values + types} names (${values} values, ${types} types)`,
    );
  });

  it('states the export counts of every entry point, and their sum', () => {
    const entries = entryPoints();
    const files: Record<string, string> = { 'rest-conventions': join(root, entries.index!) };
    for (const subpath of SUBPATHS)
      files[`rest-conventions/${subpath}`] = join(root, entries[`${subpath}/index`]!);
    const measured = moduleExports(files);
    const rows = Object.entries(measured).map(
      ([name, { values, types }]) =>
        `| \`${name}\` | ${values.length + types.length} | ${values.length} | ${types.length} |`,
    );
    const table = page.slice(page.indexOf('| entry point |'));
    const listed = table
      .split('\n')
      .slice(2)
      .filter((line) => line.startsWith('| `'));
    expect(listed).toEqual(rows);
    const total = Object.values(measured).reduce(
      (sum, { values, types }) => sum + values.length + types.length,
      0,
    );
    expect(page).toContain(`Exports per entry point, ${total} names in all over ${rows.length} entry points`);
  });

  it('lists the two request data channels', () => {
    const section = page.slice(page.indexOf('## Request data: two channels'), page.indexOf('## The model'));
    expect(section).toContain('exactly two channels');
    expect([...section.matchAll(/^\d\. /gm)]).toHaveLength(2);
    expect(section).toContain('`ctx.var`');
    expect(section).toContain('`contextKey<T>()`');
  });

  it('states the largest source file and its size', () => {
    const sizes = typeScriptFilesUnder(join(root, 'src')).map((file) => ({
      file: relative(root, file).split('\\').join('/'),
      lines: readFileSync(file, 'utf8').split('\n').length - 1,
    }));
    const largest = sizes.reduce((a, b) => (b.lines > a.lines ? b : a));
    expect(page).toContain(`The largest source file is \`${largest.file}\`, ${largest.lines} lines`);
  });
});
