import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^rest-conventions$/, replacement: `${src}index.ts` },
      {
        find: /^rest-conventions\/adapters\/(express|fastify|koa|hono)$/,
        replacement: `${src}adapters/$1/index.ts`,
      },
      { find: /^rest-conventions\/adapters\/(.*)$/, replacement: `${src}adapters/$1.ts` },
      { find: /^rest-conventions\/(.*)$/, replacement: `${src}$1/index.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // One fixed fast-check seed for every property (FC_SEED=random in `npm run test:explore`).
    setupFiles: ['test/support/fixed-seed.ts'],
    // Type-level tests (`*.test-d.ts`): vitest runs tsc on them, and a type error fails the run. It runs
    // `tsc --noEmit -p tsconfig.json`, the whole project as `npm run typecheck` does, so .ci/run, which
    // has just run that, passes `--typecheck.enabled=false`.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Bounds on hangs only, sized for a loaded machine (two cores shared with other work, `npm run
    // test:load`): a test that waits does so for a condition, never for these.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Test files share one module graph per worker instead of importing src/, the reference app and
    // their dependencies afresh in a new process each: on the 2-core CI machine the imports took
    // 180-240 s of worker time that way, 20 s this way. Nothing here relies on a fresh module: src/
    // keeps nothing at module level but memos, tests restore what they change (fake timers,
    // process.env), and every file makes its own apps, stores, ports and key prefixes. Checked with
    // the files in shuffled orders (`--sequence.shuffle.files --sequence.seed=<n>`).
    isolate: false,
    // A worker per core (vitest's default leaves one core to its main process, which is mostly idle
    // here, so 2 cores ran one file at a time): many files wait on sockets, timers and child processes.
    maxWorkers: availableParallelism(),
  },
});
