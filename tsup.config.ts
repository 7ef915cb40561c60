import { defineConfig } from 'tsup';
import { entryPoints } from './build/entries.js';

export default defineConfig({
  entry: { ...entryPoints(), 'cli/main': 'src/cli/main.ts' },
  // `import.meta.url` in the CommonJS build (the docs page resolves its assets from it).
  shims: true,
  // Keep `node:crypto` as written: Deno and workerd know Node built-ins only by the `node:` prefix.
  removeNodeProtocol: false,
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'node20',
  outDir: 'dist',
});
