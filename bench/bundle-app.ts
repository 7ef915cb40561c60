import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * The reference app as it would run in production: bundled once with esbuild (the package's source
 * through the tsconfig paths, dependencies external), then run by plain node, without tsx's loader.
 */
export async function bundleApp(): Promise<string> {
  const outfile = join('node_modules', '.cache', 'rest-conventions-bench', 'app.mjs');
  await build({
    entryPoints: ['examples/reference-app/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}
