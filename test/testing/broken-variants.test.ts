import { describe, expect, it } from 'vitest';
import { MOVED_URLS } from '../../examples/reference-app/composition-root.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { checkConventions, fetchTarget } from '../../src/testing/index.js';
import { bearer } from '../support/reference-app.js';
import { BROKEN_VARIANTS } from './broken-variants.js';

const token = async (sub: string) => (await bearer(sub)).replace(/^Bearer /, '');

describe.each(BROKEN_VARIANTS)('the kit against $name', (variant) => {
  it(`fails "${variant.property}…" with a shrunk example, and no other property`, async () => {
    const target = fetchTarget(variant.handler());
    const document = JSON.parse(
      (await target.send({ method: 'GET', path: '/openapi.json' })).text,
    ) as OpenApiDocument;
    const reports = await checkConventions({
      target,
      document,
      principals: { a: await token('1'), b: await token('2') },
      subjects: { a: '1', b: '2' },
      creates: [
        {
          path: '/orders',
          body: { bookId: 1, quantity: 1 },
          otherBody: { bookId: 1, quantity: 2 },
          update: { quantity: 3 },
          nested: (id, sub) => [`/users/${sub}/orders/${id}`],
        },
      ],
      moved: MOVED_URLS,
      versions: ['1', '2'],
      // A fixed seed keeps the test deterministic; 60 runs find each violation with most seeds.
      numRuns: 60,
      seed: 20261123,
      timeLimitMs: 5_000,
    });
    const failed = reports.filter((r) => !r.passed);
    expect(
      failed.map((r) => r.name),
      failed.map((r) => r.message).join('\n\n'),
    ).toEqual(reports.filter((r) => r.name.includes(variant.property)).map((r) => r.name));
    expect(failed[0]!.message).toMatch(/request: [A-Z]+ \//);
    expect(failed[0]!.message).toMatch(/Counterexample/);
  }, 60_000);
});
