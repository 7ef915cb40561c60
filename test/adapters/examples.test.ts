import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, type ExampleName, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import type { Served } from '../../examples/reference-app/serve.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { bearer } from '../support/reference-app.js';

/** Differs per response (the clock, the connection); `RateLimit`'s reset is read off the clock. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

async function exchange(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) kept[name] = name === 'ratelimit' ? value.replace(/;t=\d+/g, ';t=*') : value;
  });
  return { status: response.status, headers: kept, body: await response.text() };
}

const servers = new Map<ExampleName, Served>();
// A slow refill, so `RateLimit` counts requests; the development secret signs the test tokens.
const config = configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '100', RATE_LIMIT_WINDOW: '86400' });

beforeAll(async () => {
  for (const name of EXAMPLES) servers.set(name, await serveExample(name, config, 0));
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
});

describe('the four framework examples', () => {
  it('serve books and orders with the conventions, identically', async () => {
    const alice = await bearer('alice');
    const bob = await bearer('bob');
    const order = JSON.stringify({ bookId: 2, quantity: 3 });
    const json = { 'content-type': 'application/json' };
    const results = new Map<ExampleName, Answer[]>();
    for (const [name, { port }] of servers) {
      const list: Answer[] = [];
      const call = async (method: string, path: string, headers?: Record<string, string>, body?: string) => {
        const answer = await exchange(port, method, path, headers, body);
        list.push(answer);
        return answer;
      };
      const books = await call('GET', '/books');
      const book = await call('GET', '/books/1');
      await call('GET', '/books/1', { 'if-none-match': book.headers.etag! });
      await call('GET', '/books/9');
      await call('POST', '/orders', { ...json, 'idempotency-key': 'k1' }, order);
      await call('POST', '/orders', { ...json, authorization: alice }, order);
      await call('POST', '/orders', { ...json, authorization: alice, 'idempotency-key': 'k1' }, order);
      await call('POST', '/orders', { ...json, authorization: alice, 'idempotency-key': 'k1' }, order);
      await call(
        'POST',
        '/orders',
        { ...json, authorization: alice, 'idempotency-key': 'k1' },
        order.replace('3', '4'),
      );
      await call(
        'POST',
        '/orders',
        { ...json, authorization: alice, 'idempotency-key': 'k2' },
        '{"bookId":0}',
      );
      await call('GET', '/orders/1', { authorization: alice });
      await call('GET', '/orders/1', { authorization: bob });
      await call('GET', '/nowhere', { accept: 'application/problem+json' });
      expect(books.body).toContain('"title":"Kindred"');
      results.set(name, list);
    }
    const reference = results.get('express')!;
    expect(reference.map((a) => a.status)).toEqual([
      200, 200, 304, 404, 401, 400, 201, 201, 422, 400, 200, 404, 404,
    ]);
    for (const answer of reference) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers.ratelimit).toMatch(/^"default";r=\d+;t=\*$/);
      expect(answer.headers['x-powered-by']).toBeUndefined();
    }
    expect(reference[1]!.headers.etag).toMatch(/^"/);
    expect(reference[2]!.body).toBe('');
    expect(reference[4]!.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(reference[6]!.headers.location).toBe('/orders/1');
    // The replay is the framework's own response, byte for byte.
    expect(reference[7]!.body).toBe(reference[6]!.body);
    expect(reference[7]!.headers.location).toBe('/orders/1');
    expect(JSON.parse(reference[9]!.body).errors[0].source).toEqual({ pointer: '/bookId' });
    expect(reference[12]!.headers['content-type']).toBe('application/problem+json');
    for (const name of EXAMPLES) expect(results.get(name), name).toEqual(reference);
  });

  it('answer a path parameter that is not valid percent-encoding as the client’s error, never a 5xx', async () => {
    const bad = ['/books/%', '/books/%zz', '/books/%C0%80', '/books/%E0%A4%A'];
    for (const [name, { port }] of servers) {
      for (const path of bad) {
        const answer = await exchange(port, 'GET', path, { accept: 'application/problem+json' });
        expect(answer.status, `${name} ${path}`).toBeLessThan(500);
        // Express's and Fastify's routers decode the parameter and refuse it; Koa's and Hono's keep
        // it as it came and find no such book.
        if (name === 'express' || name === 'fastify') {
          expect(answer.status, `${name} ${path}`).toBe(400);
          expect(answer.body, `${name} ${path}`).not.toContain('URIError');
        } else expect(answer.status, `${name} ${path}`).toBe(404);
      }
    }
  });

  it('answer a keyed order whose JSON is malformed 400 malformed-json, stored as the core app stores it', async () => {
    const alice = await bearer('alice');
    for (const [name, { port }] of servers) {
      for (const [type, key] of [
        ['application/json', '"malformed-1"'],
        ['application/vnd.api+json', 'malformed-2'],
      ] as const) {
        const headers = { authorization: alice, 'content-type': type, 'idempotency-key': key };
        const first = await exchange(port, 'POST', '/orders', headers, '{');
        expect(first.status, `${name} ${type}`).toBe(400);
        expect(JSON.parse(first.body).errors, `${name} ${type}`).toEqual([
          expect.objectContaining({ code: 'malformed-json', source: { pointer: '' } }),
        ]);
        // A 4xx is kept for the key (docs/idempotency.md, "What is stored"): the retry is replayed,
        // and the corrected body is another request (422), sent under a new key.
        const retry = await exchange(port, 'POST', '/orders', headers, '{');
        expect(retry.headers['idempotent-replayed'], `${name} ${type}`).toBe('true');
        expect(retry.body, `${name} ${type}`).toBe(first.body);
        const corrected = JSON.stringify({ bookId: 1, quantity: 1 });
        const reused = await exchange(
          port,
          'POST',
          '/orders',
          { ...headers, 'content-type': 'application/json' },
          corrected,
        );
        expect(reused.status, `${name} ${type}`).toBe(422);
        const fresh = await exchange(
          port,
          'POST',
          '/orders',
          { ...headers, 'content-type': 'application/json', 'idempotency-key': `${name}-${key}-fixed` },
          corrected,
        );
        expect(fresh.status, `${name} ${type}`).toBe(201);
      }
    }
  });

  it('answer HEAD as they answer GET, without content (RFC 9110 section 9.3.2)', async () => {
    const alice = await bearer('alice');
    // Express's `res.send` drops a HEAD's body before the adapter sees it, so `conditional` tags
    // the empty body there (another ETag, and no 304): not covered here.
    const heads = EXAMPLES.filter((name) => name !== 'express');
    for (const name of heads) {
      const { port } = servers.get(name)!;
      const etag = (await exchange(port, 'GET', '/books/1')).headers.etag!;
      const requests: [string, Record<string, string>?][] = [
        ['/books'],
        ['/books?author=x'],
        ['/books/1'],
        ['/books/1', { 'if-none-match': etag }],
        ['/books/9'],
        ['/orders/1'],
        ['/orders/1', { authorization: alice }],
        ['/nowhere'],
      ];
      for (const [path, headers] of requests) {
        const get = await exchange(port, 'GET', path, headers);
        const head = await exchange(port, 'HEAD', path, headers);
        expect(get.status, `${name} ${path}`).toBeLessThan(500);
        // The two requests take one unit of the rate limit each.
        const remaining = Number(/;r=(\d+)/.exec(get.headers.ratelimit!)![1]);
        const expected = {
          ...get.headers,
          ratelimit: get.headers.ratelimit!.replace(/;r=\d+/, `;r=${remaining - 1}`),
        };
        expect(head, `${name} HEAD ${path}`).toEqual({ status: get.status, headers: expected, body: '' });
      }
    }
  });

  it('check the caller of a write before its Idempotency-Key: 401, not 400 idempotency-key-missing', async () => {
    for (const [name, { port }] of servers) {
      const anonymous = await exchange(port, 'POST', '/orders', { 'content-type': 'application/json' }, '{}');
      expect(anonymous.status, name).toBe(401);
      expect(anonymous.headers['www-authenticate'], name).toMatch(/^Bearer/);
    }
  });

  it("read an order's caller with requireCaller(): anonymous is requireAuth()'s 401 document", async () => {
    for (const [name, { port }] of servers) {
      const anonymous = await exchange(port, 'GET', '/orders/1', {});
      expect(anonymous.status, name).toBe(401);
      expect(anonymous.headers['www-authenticate'], name).toBe('Bearer realm="api"');
      expect(JSON.parse(anonymous.body).errors[0], name).toMatchObject({
        code: 'unauthenticated',
        source: { header: 'Authorization' },
      });
    }
  });

  it('serve /openapi.json of their own operations, which lints clean', async () => {
    for (const [name, { port }] of servers) {
      const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe('application/vnd.oai.openapi+json');
      const document = await response.json();
      expect(Object.keys(document.paths).sort(), name).toEqual([
        '/books',
        '/books/{id}',
        '/orders',
        '/orders/{id}',
      ]);
      expect(lintOpenApi(document), name).toEqual([]);
    }
  });

  it('answer an unknown path and method with an error document (404, 405 with Allow)', async () => {
    for (const [name, { port }] of servers) {
      const nowhere = await exchange(port, 'GET', '/nowhere');
      expect(nowhere.status, name).toBe(404);
      expect(nowhere.headers['cache-control'], name).toBe('no-store');
      expect(JSON.parse(nowhere.body).errors[0].detail, name).toBe('No resource exists at this path.');
      const method = await exchange(port, 'DELETE', '/books/1');
      expect(method.status, name).toBe(405);
      expect(method.headers.allow, name).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('are each named in examples/README.md', () => {
    const examples = join(import.meta.dirname, '..', '..', 'examples');
    const readme = readFileSync(join(examples, 'README.md'), 'utf8');
    const folders = readdirSync(examples, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (const { name } of folders) expect(readme, name).toContain(`\`${name}/\``);
  });

  it('key anonymous callers by their address (the Hono driver reads @hono/node-server bindings)', async () => {
    for (const [name, { port }] of servers) {
      const remaining = async (host: string) =>
        Number(
          /;r=(\d+)/.exec((await fetch(`http://${host}:${port}/books`)).headers.get('ratelimit') ?? '')?.[1],
        );
      const first = await remaining('127.0.0.1');
      expect(await remaining('[::1]'), name).toBe(99);
      expect(await remaining('127.0.0.1'), name).toBe(first - 1);
    }
  });
});
