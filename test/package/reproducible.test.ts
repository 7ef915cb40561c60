import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXED_SEED } from '../support/fixed-seed.js';
import { fc, test } from '../support/prop.js';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('npm test is reproducible', () => {
  it('runs fast-check from the fixed seed unless FC_SEED asks for another', () => {
    const asked = process.env.FC_SEED;
    if (asked === 'random') expect(fc.readConfigureGlobal().seed).toBeUndefined();
    else expect(fc.readConfigureGlobal().seed).toBe(asked ? Number(asked) : FIXED_SEED);
  });

  test.prop([fc.nat()], { numRuns: 3 })('names a property test without its seed', () => {
    expect(expect.getState().currentTestName).toMatch(/names a property test without its seed$/);
  });

  it('has no test file naming its properties with the seed (@fast-check/vitest does)', () => {
    const offenders = files(TEST_DIR).filter(
      (file) => file.endsWith('.ts') && /from '@fast-check\/vitest'/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
