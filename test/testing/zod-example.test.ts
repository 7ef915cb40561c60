/**
 * The zod example (`examples/zod/`, Hono with zod schemas end to end) under `rest-conventions check`
 * given only the base URL and two tokens, reading the document it serves at `/openapi.json`; and a
 * planted broken variant of it, which the check must fail on exactly the convention it breaks.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { listen } from '../../examples/reference-app/serve.js';
import { zodShop } from '../../examples/zod/server.js';
import { lintOpenApi } from '../../src/lint/index.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { basicArgs, expectCheckPasses, runCheck } from '../support/check-cli.js';
import { rawToken } from '../support/reference-kit.js';
import { withRequest } from './broken-variants.js';

const config = () => configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000000' });
const JSON_BODY = { 'content-type': 'application/json', 'idempotency-key': '"zod-1"' };

describe('the zod example', async () => {
  const served = await serveExample('zod', config(), 0);
  afterAll(() => served.close());
  const base = `http://127.0.0.1:${served.port}`;

  it(
    'passes rest-conventions check with only --base and two tokens',
    () => expectCheckPasses(base, 'zod-alice', 'zod-bob'),
    60_000,
  );

  it("serves a document whose schemas are zod's own, and which lints clean", async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
    expect(lintOpenApi(document)).toEqual([]);
    const schemas = document.components?.schemas as Record<string, Record<string, unknown>>;
    expect(schemas.OrdersAttributes).toMatchObject({
      type: 'object',
      properties: { bookId: { type: 'integer', minimum: 1 }, quantity: { type: 'integer', maximum: 100 } },
      required: ['bookId', 'quantity'],
      additionalProperties: false,
    });
    expect(schemas.BooksResource).toMatchObject({
      properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$' } },
    });
  });

  it("answers a body zod refuses with the library's 400, a pointer per problem", async () => {
    const sent = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { ...JSON_BODY, authorization: `Bearer ${await rawToken('zod-alice')}` },
      body: JSON.stringify({ bookId: 0, count: 2 }),
    });
    expect(sent.status).toBe(400);
    const { errors } = (await sent.json()) as { errors: { code: string; source: { pointer: string } }[] };
    expect(errors.map((e) => `${e.code} ${e.source.pointer}`).sort()).toEqual([
      'invalid-field /bookId',
      'missing-field /quantity',
      'unknown-field /count',
    ]);
  });
});

/**
 * The planted fault: an order is read with its creator's credentials whoever asks, as if the route
 * trusted anyone holding the order's id.
 */
function readsAnyonesOrder(handler: (request: Request) => Promise<Response>) {
  const creators = new Map<string, string>();
  return async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const creator = creators.get(path);
    const asked =
      request.method === 'GET' && creator !== undefined
        ? withRequest(request, (h) => h.set('authorization', creator))
        : request;
    const response = await handler(asked);
    const location = response.headers.get('location');
    const caller = request.headers.get('authorization');
    if (request.method === 'POST' && response.status === 201 && location !== null && caller !== null)
      creators.set(location, caller);
    return response;
  };
}

describe('rest-conventions check against the zod example reading anyone their order', async () => {
  const app = zodShop(config());
  const broken = readsAnyonesOrder(async (request) => app.fetch(request));
  const served = await listen(http.createServer(getRequestListener(broken)), 0);
  afterAll(() => served.close());

  it('fails ownership, and no other property, showing the request as curl', async () => {
    const { code, output } = await runCheck([
      ...(await basicArgs(`http://127.0.0.1:${served.port}`, 'zod-alice', 'zod-bob')),
      '--runs',
      '4',
    ]);
    const failed = [...output.matchAll(/^FAIL {2}([\w-]+):/gm)].map((m) => m[1]);
    expect([...new Set(failed)], output).toEqual(['ownership']);
    expect(output).toMatch(/^ {8}curl -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/orders\//m);
    expect(code).toBe(1);
  }, 60_000);
});
