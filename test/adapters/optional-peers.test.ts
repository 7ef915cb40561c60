import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { entryPoints, FRAMEWORK_SUBPATHS } from '../../build/entries.js';

const root = resolve(import.meta.dirname, '..', '..');
const FRAMEWORK_PACKAGES = /^(?:express|fastify|koa|hono|@koa\/|@hono\/|@fastify\/)/;

/** The bare package names an entry point loads at run time (types are erased by the bundler). */
async function runtimeImports(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const imports = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) if (imported.external) imports.add(imported.path);
  }
  return [...imports].sort();
}

describe('frameworks are optional peers', () => {
  const entries = Object.entries(entryPoints());

  it.each(entries)('%s loads no framework at run time', async (_name, entry) => {
    const frameworks = (await runtimeImports(entry)).filter((name) => FRAMEWORK_PACKAGES.test(name));
    expect(frameworks).toEqual([]);
  });

  it('every framework subpath is an entry point', () => {
    for (const subpath of FRAMEWORK_SUBPATHS) expect(entryPoints()[`${subpath}/index`]).toBeDefined();
  });

  it('the check sees a framework when one is imported', async () => {
    // The probe itself: the reference app's server module imports all four frameworks.
    const frameworks = (await runtimeImports('examples/reference-app/serve.ts')).filter((name) =>
      FRAMEWORK_PACKAGES.test(name),
    );
    expect(frameworks).toEqual(['@hono/node-server', 'express', 'fastify', 'hono', 'koa']);
  });
});
