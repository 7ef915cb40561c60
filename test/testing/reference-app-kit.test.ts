import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, serve } from '../../examples/reference-app/serve.js';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { conventionProperties, fetchTarget, urlTarget } from '../../src/testing/index.js';
import { referenceApp } from '../support/reference-app.js';
import { referenceKitOptions } from '../support/reference-kit.js';

/** Runs per property here; the seed is fast-check's global one (FC_SEED replays another). */
const bounds = (numRuns: number) => ({ numRuns });

describe('the conventions kit against the reference app, in process', async () => {
  const { app } = referenceApp();
  const options = await referenceKitOptions(fetchTarget(toFetchHandler(app)), bounds(20));
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
    const options = await referenceKitOptions(urlTarget(`http://127.0.0.1:${served.port}`), bounds(10));
    for (const property of conventionProperties(options)) {
      it(property.name, () => property.check(), 30_000);
    }
  },
);
