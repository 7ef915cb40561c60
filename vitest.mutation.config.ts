import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The direct tests of the six pure cores that `npm run test:mutation` mutates (stryker.config.json):
 * a mutant counts as killed only when these tests, not an end-to-end one, catch it.
 */
export const DIRECT_TESTS = [
  'test/caching/preconditions.test.ts',
  'test/caching/entity-tag.test.ts',
  'test/ratelimit/gcra.test.ts',
  'test/ownership/decision.test.ts',
  'test/idempotency/decision.test.ts',
  'test/idempotency/key.test.ts',
];

// Each test file in a fresh module graph, as Stryker's runner has always had it here.
const config = mergeConfig(base, defineConfig({ test: { typecheck: { enabled: false }, isolate: true } }));
// Replaced, not merged: mergeConfig would append these to the whole suite's files.
config.test = { ...config.test, include: DIRECT_TESTS };
export default config;
