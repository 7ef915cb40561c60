/**
 * The four framework examples under the conventions kit: through the library (every property a
 * test) and through `rest-conventions check` with only the base URL, two tokens and the document of
 * their four operations (the examples do not serve one themselves).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { conventionProperties, urlTarget } from '../../src/testing/index.js';
import { basicArgs, runCheck } from '../support/check-cli.js';
import { referenceApp } from '../support/reference-app.js';
import { rawToken } from '../support/reference-kit.js';

/** The four operations every framework example serves, as the reference app documents them. */
const EXAMPLE_OPERATIONS: Record<string, string> = {
  '/books': 'get',
  '/books/{id}': 'get',
  '/orders': 'post',
  '/orders/{id}': 'get',
};

async function exampleDocument(): Promise<OpenApiDocument> {
  const { app } = referenceApp();
  const response = await toFetchHandler(app)(new Request('http://app.test/openapi.json'));
  const document = (await response.json()) as OpenApiDocument;
  return {
    ...document,
    paths: Object.fromEntries(
      Object.entries(EXAMPLE_OPERATIONS).map(([path, method]) => {
        const item = document.paths?.[path] as Record<string, unknown>;
        return [path, { [method]: item[method] }];
      }),
    ),
  };
}

const token = rawToken;

describe.each(EXAMPLES)('the conventions kit against the %s example', async (name) => {
  const served = await serveExample(name, configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000000' }), 0);
  afterAll(() => served.close());
  const document = await exampleDocument();
  const properties = conventionProperties({
    target: urlTarget(`http://127.0.0.1:${served.port}`),
    document,
    principals: { a: await token('kit-alice'), b: await token('kit-bob') },
    creates: [{ path: '/orders', body: { bookId: 1, quantity: 1 }, otherBody: { bookId: 1, quantity: 2 } }],
    numRuns: 10,
    timeLimitMs: 5_000,
  });
  for (const property of properties) it(property.name, () => property.check(), 30_000);

  it('passes rest-conventions check with only --base, two tokens and its document', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'kit-example-')), 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const { code, output } = await runCheck([
      ...(await basicArgs(`http://127.0.0.1:${served.port}`, 'kit-alice', 'kit-bob')),
      '--openapi',
      file,
      '--runs',
      '4',
    ]);
    expect(output).not.toMatch(/^FAIL/m);
    for (const id of ['idempotency', 'validators', 'ownership'])
      expect(output).toMatch(new RegExp(`^pass {2}${id}: `, 'm'));
    expect(code).toBe(0);
  }, 60_000);
});
