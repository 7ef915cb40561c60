import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * Hostile requests against every way the library is served: the reference app through each
 * adapter, and the four framework examples (the adapters' `conventions` middleware around the
 * frameworks' own routes). `fuzz.property.test.ts` covers the node adapter in depth; this covers
 * what the frameworks add: their routers' decoding, their body parsers, their HEAD handling. The
 * property: whatever the combination of method, path, headers and body from the corpus below,
 * the answer is never a 5xx and never names an internal error, and the server keeps answering.
 * Each class in the corpus once found a 5xx in some framework (see the commits that added it).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

const PATHS = [
  '/books',
  '/books/1',
  '/books/%',
  '/books/%zz',
  '/books/%C0%80',
  '/books/%E0%A4%A',
  '/books?author=%',
  '/books?author=%zz',
  '/books?sort=-',
  '/books?page[size]=1e309',
  '/books?a&a&a=1&a[b]=2',
  '/orders',
  '/orders/%',
  '/orders/1',
  '/orders/99999999999999999999',
  '/users/%/orders/%',
  '/api/v1/standards/%',
  '/nowhere/%',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'];
const HEADERS: Record<string, string>[] = [
  {},
  { accept: '*/*;q=abc' },
  { accept: 'application/problem+json' },
  { 'if-none-match': 'W/' },
  { 'if-modified-since': 'garbage' },
  { authorization: 'Bearer a.b.c' },
  { 'content-type': 'application/json' },
  { 'content-type': 'application/vnd.api+json; ext=foo' },
  { 'content-type': 'application/json', 'idempotency-key': '"hostile"' },
  { 'content-type': 'application/json', 'idempotency-key': 'x' },
  { 'content-type': 'text/plain' },
];
const BODIES = [
  undefined,
  '',
  '{',
  '[]',
  'null',
  '\ufeff{"bookId":1,"quantity":1}',
  '{"bookId":"1"}',
  '{"bookId":1e400,"quantity":1}',
  '{"__proto__":{"x":1},"bookId":1,"quantity":1}',
  '{"data":{"type":"orders","attributes":{"bookId":1,"quantity":1}}}',
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
];
/** What an answer must never contain: the names of internal errors, stack frames, file paths. */
const INTERNALS = /\n\s+at |URIError|TypeError|SyntaxError|RangeError|node_modules|\.ts:\d/;

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One request on a fresh connection, with a `Content-Length` for every body (RFC 9112 section 6.3). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const framing = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path, agent: false, headers: { ...headers, ...framing } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.setTimeout(5_000, () => request.destroy(new Error(`${method} ${path}: no answer in 5 s`)));
    request.end(body);
  });
}

const servers = new Map<string, Served>();
let token: string;

beforeAll(async () => {
  token = await bearer('hostile', 'orders:read orders:write standards:read standards:write');
  // No rate limit in the way: every request must reach the parts under test.
  for (const adapter of ADAPTERS)
    servers.set(
      `app/${adapter}`,
      await serve(adapter, referenceApp({ RATE_LIMIT_MAX: '1000000000' }).app, 0),
    );
  for (const example of EXAMPLES)
    servers.set(
      `example/${example}`,
      await serveExample(example, configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000000000' }), 0),
    );
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
});

const hostileRequest = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc.constantFrom(...PATHS),
  headers: fc.constantFrom(...HEADERS),
  authorized: fc.boolean(),
  body: fc.constantFrom(...BODIES),
});

describe('hostile requests through every adapter and framework example', () => {
  it.each([...ADAPTERS.map((a) => `app/${a}`), ...EXAMPLES.map((e) => `example/${e}`)])(
    '%s: never a 5xx, never an internal error named, still answering',
    async (name) => {
      const { port } = servers.get(name)!;
      await fc.assert(
        fc.asyncProperty(hostileRequest, async ({ method, path, headers, authorized, body }) => {
          const sent = authorized ? { ...headers, authorization: token } : headers;
          // GET and HEAD carry no content here: a framework may refuse it outright (RFC 9110 section 9.3.1).
          const content = method === 'GET' || method === 'HEAD' ? undefined : body;
          const answer = await send(port, method, path, sent, content);
          expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
          expect(answer.status, `${method} ${path}`).toBeLessThan(500);
          expect(answer.body).not.toMatch(INTERNALS);
        }),
        { numRuns: RUNS },
      );
      expect((await send(port, 'GET', '/books/1', {})).status).toBe(200);
    },
    60_000,
  );
});
