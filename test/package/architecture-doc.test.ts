import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleExports } from '../support/module-exports.js';
import { typeScriptFilesUnder } from '../support/source-files.js';

// docs/architecture.md states the size of the public root and of the largest source file: measured
// here from the source, so the page fails this test as soon as it is stale.

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** How many names `src/index.ts` exports, values and types, as the compiler resolves them. */
function rootExports(): { values: number; types: number } {
  const { values, types } = moduleExports({ root: join(root, 'src/index.ts') }).root!;
  return { values: values.length, types: types.length };
}

describe('docs/architecture.md', () => {
  it("states the root's export count", () => {
    const { values, types } = rootExports();
    // A root a newcomer can hold: a few dozen names (docs/api.md), not every primitive.
    expect(values).toBeGreaterThan(0);
    expect(values + types).toBeLessThanOrEqual(50);
    expect(page).toContain(
      `The root, \`rest-conventions\`, exports ${values + types} names (${values} values, ${types} types)`,
    );
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
