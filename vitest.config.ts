import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^rest-conventions$/, replacement: `${src}index.ts` },
      { find: /^rest-conventions\/adapters\/(.*)$/, replacement: `${src}adapters/$1.ts` },
      { find: /^rest-conventions\/(express|fastify|koa|hono)$/, replacement: `${src}adapters/$1/index.ts` },
      { find: /^rest-conventions\/(.*)$/, replacement: `${src}$1/index.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // One fixed fast-check seed for every property (FC_SEED=random in `npm run test:explore`).
    setupFiles: ['test/support/fixed-seed.ts'],
    // Type-level tests (`*.test-d.ts`): vitest runs tsc on them, and a type error fails the run.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
