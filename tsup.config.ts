import { defineConfig } from 'tsup';
import { entryPoints } from './build/entries.js';

export default defineConfig({
  entry: entryPoints(),
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
  target: 'node20',
  outDir: 'dist',
});
