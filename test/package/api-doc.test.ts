import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryPoints, FRAMEWORK_SUBPATHS, SUBPATHS } from '../../build/entries.js';
import { moduleExports } from '../support/module-exports.js';

const root = join(import.meta.dirname, '../..');
const apiPage = readFileSync(join(root, 'docs/api.md'), 'utf8');

/** The values (or types) docs/api.md lists for one entry point. */
function documentedValues(subpath: string, kind: 'Values' | 'Types' = 'Values'): string[] {
  const section = apiPage.split(`## \`rest-conventions/${subpath}\``)[1]?.split('\n## ')[0] ?? '';
  const line = section.split('\n').find((l) => l.startsWith(`- ${kind}: `)) ?? '';
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort();
}

describe('the public API (docs/api.md)', () => {
  const entries = entryPoints();

  it.each(SUBPATHS.filter((s) => !(FRAMEWORK_SUBPATHS as readonly string[]).includes(s)))(
    'lists exactly the values rest-conventions/%s exports',
    async (subpath) => {
      const module = await import(join(root, entries[`${subpath}/index`]!));
      expect(documentedValues(subpath)).toEqual(Object.keys(module).sort());
    },
  );

  it('lists exactly the types each entry point exports', () => {
    const documented = SUBPATHS.filter((s) => !(FRAMEWORK_SUBPATHS as readonly string[]).includes(s));
    const exported = moduleExports(
      Object.fromEntries(documented.map((subpath) => [subpath, join(root, entries[`${subpath}/index`]!)])),
    );
    const stale: Record<string, { missing: string[]; extra: string[] }> = {};
    for (const subpath of documented) {
      const listed = documentedValues(subpath, 'Types');
      const actual = exported[subpath]!.types;
      const missing = actual.filter((name) => !listed.includes(name));
      const extra = listed.filter((name) => !actual.includes(name));
      if (missing.length + extra.length > 0) stale[subpath] = { missing, extra };
    }
    expect(stale).toEqual({});
  });

  it('exports at the root exactly the values it lists, each the same function as on its subpath', async () => {
    const rootModule: Record<string, unknown> = await import(join(root, 'src/index.ts'));
    const section = apiPage.split('## `rest-conventions`\n')[1]?.split('\n## ')[0] ?? '';
    const line = section.split('\n').find((l) => l.startsWith('- Values: ')) ?? '';
    const listed = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort();
    expect(listed.length).toBeGreaterThan(0);
    expect(Object.keys(rootModule).sort()).toEqual(listed);
    const subpaths = await Promise.all(
      SUBPATHS.filter((s) => !(FRAMEWORK_SUBPATHS as readonly string[]).includes(s)).map(
        async (subpath) => [subpath, await import(join(root, entries[`${subpath}/index`]!))] as const,
      ),
    );
    for (const [name, value] of Object.entries(rootModule)) {
      const homes = subpaths.filter(([, module]) => module[name] === value).map(([subpath]) => subpath);
      expect(homes.length, `${name} is on a subpath`).toBeGreaterThan(0);
    }
    // Cores, stores and parsers stay on their subpath.
    for (const subpathOnly of [
      'Router',
      'RequestContext',
      'parseIp',
      'gcraDecide',
      'memoryRateLimitStore',
      'parseAccept',
    ]) {
      expect(rootModule).not.toHaveProperty(subpathOnly);
    }
  });
});
