import { afterAll, describe, expect, it } from 'vitest';
import { MOVED_URLS } from '../../examples/reference-app/composition-root.js';
import { ADAPTERS, serve } from '../../examples/reference-app/serve.js';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { conventionProperties, fetchTarget, type KitOptions, urlTarget } from '../../src/testing/index.js';
import { bearer, referenceApp } from '../support/reference-app.js';

const token = async (sub: string) => (await bearer(sub)).replace(/^Bearer /, '');

/** The kit's options for the reference app, reached through `target`. */
async function referenceKitOptions(target: KitOptions['target'], numRuns = 20): Promise<KitOptions> {
  const document = JSON.parse(
    (await target.send({ method: 'GET', path: '/openapi.json' })).text,
  ) as OpenApiDocument;
  return {
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
    numRuns,
    ...(process.env.KIT_SEED ? { seed: Number(process.env.KIT_SEED) } : {}),
    timeLimitMs: 5_000,
  };
}

describe('the conventions kit against the reference app, in process', async () => {
  const { app } = referenceApp();
  const options = await referenceKitOptions(fetchTarget(toFetchHandler(app)));
  for (const property of conventionProperties(options)) {
    it(property.name, () => property.check(), 30_000);
  }
  it('has the properties it should', () => expect(conventionProperties(options).length).toBeGreaterThan(8));
});

describe.each(ADAPTERS)(
  'the conventions kit against the reference app served by %s, over a socket',
  async (adapter) => {
    const { app } = referenceApp();
    const served = await serve(adapter, app, 0);
    afterAll(() => served.close());
    const options = await referenceKitOptions(urlTarget(`http://127.0.0.1:${served.port}`), 10);
    for (const property of conventionProperties(options)) {
      it(property.name, () => property.check(), 30_000);
    }
  },
);
