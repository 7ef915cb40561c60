/**
 * The four framework examples under the conventions kit: through the library (every property a
 * test) and through `rest-conventions check` with only the base URL and two tokens, reading the
 * document each example serves of its own routes at `/openapi.json`.
 */
import { afterAll, describe, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { conventionProperties, urlTarget } from '../../src/testing/index.js';
import { expectCheckPasses } from '../support/check-cli.js';
import { rawToken } from '../support/reference-kit.js';

const token = rawToken;

describe.each(EXAMPLES)('the conventions kit against the %s example', async (name) => {
  const served = await serveExample(name, configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000000' }), 0);
  afterAll(() => served.close());
  const base = `http://127.0.0.1:${served.port}`;
  const document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
  const properties = conventionProperties({
    target: urlTarget(base),
    document,
    principals: { a: await token('kit-alice'), b: await token('kit-bob') },
    creates: [{ path: '/orders', body: { bookId: 1, quantity: 1 }, otherBody: { bookId: 1, quantity: 2 } }],
    numRuns: 10,
    timeLimitMs: 5_000,
  });
  for (const property of properties) it(property.name, () => property.check(), 30_000);

  it(
    'passes rest-conventions check with only --base and two tokens',
    () => expectCheckPasses(base, 'kit-alice', 'kit-bob'),
    60_000,
  );
});
