import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { FIXED_SEED } from '../support/fixed-seed.js';

describe('npm test is reproducible', () => {
  it('runs fast-check from the fixed seed unless FC_SEED asks for another', () => {
    const asked = process.env.FC_SEED;
    if (asked === 'random') expect(fc.readConfigureGlobal().seed).toBeUndefined();
    else expect(fc.readConfigureGlobal().seed).toBe(asked ? Number(asked) : FIXED_SEED);
  });

  // @fast-check/vitest names a property with its seed: the global one, so every run of a commit
  // names the same tests.
  test.prop([fc.nat()], { numRuns: 3 })("names a property test with the run's seed", () => {
    const seed = fc.readConfigureGlobal().seed;
    const expected = seed === undefined ? /\(with seed=-?\d+\)$/ : new RegExp(`\\(with seed=${seed}\\)$`);
    expect(expect.getState().currentTestName).toMatch(expected);
  });
});
