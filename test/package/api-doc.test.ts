import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryPoints, SUBPATHS } from '../../build/entries.js';

const root = join(import.meta.dirname, '../..');
const apiPage = readFileSync(join(root, 'docs/api.md'), 'utf8');

/** The values docs/api.md lists for one entry point. */
function documentedValues(subpath: string): string[] {
  const section = apiPage.split(`## \`rest-conventions/${subpath}\``)[1]?.split('\n## ')[0] ?? '';
  const line = section.split('\n').find((l) => l.startsWith('- Values: ')) ?? '';
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort();
}

describe('the public API (docs/api.md)', () => {
  const entries = entryPoints();

  it.each(SUBPATHS.filter((s) => !['express', 'fastify', 'koa', 'hono'].includes(s)))(
    'lists exactly the values rest-conventions/%s exports',
    async (subpath) => {
      const module = await import(join(root, entries[`${subpath}/index`]!));
      expect(documentedValues(subpath)).toEqual(Object.keys(module).sort());
    },
  );

  it('exports at the root exactly the primitives from core to ratelimit, and no internals', async () => {
    const rootModule = await import(join(root, 'src/index.ts'));
    const primitives = SUBPATHS.slice(0, SUBPATHS.indexOf('ratelimit') + 1);
    const union = new Set(primitives.flatMap((subpath) => documentedValues(subpath)));
    expect(Object.keys(rootModule).sort()).toEqual([...union].sort());
    for (const internal of ['gcraStateFromDebt', 'gcraDebt', 'scopeKey', 'inBlocks', 'canonicalJson']) {
      expect(rootModule).not.toHaveProperty(internal);
    }
  });
});
