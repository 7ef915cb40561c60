import { describe, expect, it } from 'vitest';
import { checkConventions, fetchTarget } from '../../src/testing/index.js';
import { referenceKitOptions } from '../support/reference-kit.js';
import { BROKEN_VARIANTS } from './broken-variants.js';

describe.each(BROKEN_VARIANTS)('the kit against $name', (variant) => {
  it(`fails "${variant.property}…" with a shrunk example, and no other property`, async () => {
    const target = fetchTarget(variant.handler());
    // A fixed seed keeps the test deterministic; 60 runs find each violation with most seeds.
    const reports = await checkConventions(
      await referenceKitOptions(target, { numRuns: 60, seed: 20261123 }),
    );
    const failed = reports.filter((r) => !r.passed);
    expect(
      failed.map((r) => r.name),
      failed.map((r) => r.message).join('\n\n'),
    ).toEqual(reports.filter((r) => r.name.includes(variant.property)).map((r) => r.name));
    expect(failed[0]!.message).toMatch(/request: [A-Z]+ \//);
    expect(failed[0]!.message).toMatch(/Counterexample/);
  }, 60_000);
});
