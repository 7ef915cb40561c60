import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * CORS over a socket on every adapter: the reference app served by node, fetch, Express, Fastify,
 * Koa and Hono (`ADAPTER`), and the four framework examples, whose own routers answer the preflight
 * (Express's automatic OPTIONS, the `conventionsNotFound` of Fastify, Koa and Hono).
 */
const APP = 'http://localhost:5173';

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** node:http, which sends `Origin` as given (a browser's fetch would not let a script set it). */
function request(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const config = configFromEnv({ PORT: '0', CORS_ORIGINS: APP, RATE_LIMIT_MAX: '100000' });
const servers: [string, Served][] = [];

beforeAll(async () => {
  for (const adapter of ADAPTERS)
    servers.push([
      `reference app on ${adapter}`,
      await serve(adapter, referenceApp({ CORS_ORIGINS: APP }).app, 0),
    ]);
  for (const name of EXAMPLES) servers.push([`${name} example`, await serveExample(name, config, 0)]);
});
afterAll(async () => {
  for (const [, served] of servers) await served.close();
});

describe.each(ADAPTERS.map((a) => `reference app on ${a}`).concat(EXAMPLES.map((n) => `${n} example`)))(
  'CORS on the %s',
  (name) => {
    const port = () => servers.find(([n]) => n === name)![1].port;

    it('answers a preflight from its route table: 204, the methods of Allow, the conventions’ headers', async () => {
      const keyed = await request(port(), 'OPTIONS', '/orders', {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      });
      expect(keyed.status).toBe(204);
      expect(keyed.body).toBe('');
      expect(keyed.headers['access-control-allow-origin']).toBe(APP);
      expect(keyed.headers['access-control-allow-methods']).toMatch(/\bPOST\b/);
      expect(keyed.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
      expect(keyed.headers['access-control-allow-headers']).toMatch(/Authorization/);
      expect(keyed.headers['access-control-max-age']).toBe('7200');
      expect(keyed.headers.vary).toMatch(/Origin/);
      expect(keyed.headers.ratelimit).toBeUndefined();
      const conditional = await request(port(), 'OPTIONS', '/books/1', {
        origin: APP,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      });
      expect(conditional.status).toBe(204);
      expect(conditional.headers['access-control-allow-methods']).toMatch(/\bGET\b/);
    });

    it('puts the CORS headers on a 200, a 304, a 401 and a 404', async () => {
      const book = await request(port(), 'GET', '/books/1', { origin: APP });
      expect(book.status).toBe(200);
      const unchanged = await request(port(), 'GET', '/books/1', {
        origin: APP,
        'if-none-match': String(book.headers.etag),
      });
      expect(unchanged.status).toBe(304);
      const anonymous = await request(port(), 'POST', '/orders', {
        origin: APP,
        'content-type': 'application/json',
      });
      expect(anonymous.status).toBe(401);
      const missing = await request(port(), 'GET', '/nowhere', {
        origin: APP,
        authorization: await bearer('1'),
      });
      expect(missing.status).toBe(404);
      for (const answer of [book, unchanged, anonymous, missing]) {
        expect(answer.headers['access-control-allow-origin']).toBe(APP);
        expect(answer.headers['access-control-expose-headers']).toMatch(/ETag, Location, RateLimit/);
        expect(answer.headers.vary).toMatch(/Origin/);
      }
    });

    it('gives another origin no permission', async () => {
      const preflight = await request(port(), 'OPTIONS', '/orders', {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
      });
      const read = await request(port(), 'GET', '/books/1', { origin: 'https://evil.example' });
      for (const answer of [preflight, read]) {
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
        expect(answer.headers['access-control-allow-methods']).toBeUndefined();
      }
    });
  },
);
