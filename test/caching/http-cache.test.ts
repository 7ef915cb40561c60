/**
 * An independent HTTP cache (`http-cache-semantics`, RFC 9111) as the client of a real node:http
 * server: a second read is served fresh from the cache, or revalidated with a 304.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { cacheControlDefault, conditional, versionEtag } from '../../src/caching/index.js';
import { json } from '../../src/core/response.js';
import type { Context } from '../../src/http/types.js';

type FieldMap = Record<string, string>;
interface CacheRequest {
  url: string;
  method: string;
  headers: FieldMap;
}
interface CacheResponse {
  status: number;
  headers: FieldMap;
}
interface CachePolicy {
  storable(): boolean;
  satisfiesWithoutRevalidation(request: CacheRequest): boolean;
  revalidationHeaders(request: CacheRequest): FieldMap;
  revalidatedPolicy(
    request: CacheRequest,
    response: CacheResponse,
  ): { policy: CachePolicy; modified: boolean };
  now(): number;
}
type CachePolicyClass = new (
  request: CacheRequest,
  response: CacheResponse,
  options?: { shared?: boolean },
) => CachePolicy;

// http-cache-semantics ships no type declarations; the interface above is what this test uses of it.
const HttpCachePolicy = createRequire(import.meta.url)('http-cache-semantics') as CachePolicyClass;

/** The cache's clock, moved by the test instead of waiting (the library documents `now()` as the hook). */
let clock = Date.now();
class FakeClockPolicy extends (HttpCachePolicy as unknown as new (
  ...args: ConstructorParameters<CachePolicyClass>
) => CachePolicy) {
  override now(): number {
    return clock;
  }
}

interface Stored {
  policy: CachePolicy;
  body: string;
}
type Outcome = 'network' | 'fresh' | 'revalidated' | 'refetched';

/** A minimal caching client built only from http-cache-semantics decisions. */
class CachingClient {
  private readonly store = new Map<string, Stored>();
  constructor(
    private readonly origin: string,
    private readonly shared: boolean,
  ) {}

  async get(
    path: string,
    headers: FieldMap = {},
  ): Promise<{ outcome: Outcome; body: string; status: number }> {
    const request: CacheRequest = {
      url: path,
      method: 'GET',
      headers: { accept: 'application/vnd.api+json', ...headers },
    };
    const stored = this.store.get(path);
    if (stored?.policy.satisfiesWithoutRevalidation(request))
      return { outcome: 'fresh', body: stored.body, status: 200 };
    const sent = stored ? stored.policy.revalidationHeaders(request) : request.headers;
    const reply = await fetch(this.origin + path, { headers: sent });
    const response: CacheResponse = { status: reply.status, headers: {} };
    reply.headers.forEach((value, name) => {
      response.headers[name] = value;
    });
    const body = await reply.text();
    if (stored !== undefined) {
      const { policy, modified } = stored.policy.revalidatedPolicy({ ...request, headers: sent }, response);
      if (!modified) {
        expect(reply.status).toBe(304);
        expect(body).toBe('');
        this.store.set(path, { policy, body: stored.body });
        return { outcome: 'revalidated', body: stored.body, status: 200 };
      }
    }
    const policy = new FakeClockPolicy(request, response, { shared: this.shared });
    if (policy.storable()) this.store.set(path, { policy, body });
    else this.store.delete(path);
    return { outcome: stored === undefined ? 'network' : 'refetched', body, status: reply.status };
  }

  has(path: string): boolean {
    return this.store.has(path);
  }
}

const books = new Map([['1', { title: 'Dune', version: 1 }]]);
const hits = { books: 0, orders: 0 };
let server: http.Server;
let origin = '';

beforeAll(async () => {
  const app = createApp({ use: [cacheControlDefault()] });
  const validators = (ctx: Context<{ id: string }>) => {
    const book = books.get(ctx.params.id);
    return book && { etag: versionEtag(book.version) };
  };
  app.route({
    method: 'GET',
    path: '/books/{id}',
    use: [conditional({ validators, policy: { scope: 'public', maxAge: 60 } })],
    handler: (ctx) => {
      hits.books++;
      return json(200, { data: { type: 'books', id: ctx.params.id, attributes: books.get(ctx.params.id) } });
    },
  });
  app.route({
    method: 'GET',
    path: '/orders/{id}',
    use: [conditional({ policy: { scope: 'private', noCache: true } })],
    handler: (ctx) => {
      hits.orders++;
      return json(200, { data: { type: 'orders', id: ctx.params.id, attributes: { quantity: 2 } } });
    },
  });
  server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  clock = Date.now();
  books.set('1', { title: 'Dune', version: 1 });
  hits.books = 0;
  hits.orders = 0;
});

describe('when a shared cache reads a public, max-age=60 resource', () => {
  it('serves the second read fresh, without asking the server', async () => {
    const cache = new CachingClient(origin, true);
    const first = await cache.get('/books/1');
    expect(first.outcome).toBe('network');
    const second = await cache.get('/books/1');
    expect(second).toEqual({ outcome: 'fresh', body: first.body, status: 200 });
    expect(hits.books).toBe(1);
  });

  it('once stale, revalidates with If-None-Match and gets a 304 without the handler running', async () => {
    const cache = new CachingClient(origin, true);
    const first = await cache.get('/books/1');
    clock += 61_000;
    const second = await cache.get('/books/1');
    expect(second).toEqual({ outcome: 'revalidated', body: first.body, status: 200 });
    expect(hits.books).toBe(1);
    // The 304 refreshed the stored response: fresh again.
    expect((await cache.get('/books/1')).outcome).toBe('fresh');
  });

  it('once stale and changed, gets the new representation', async () => {
    const cache = new CachingClient(origin, true);
    await cache.get('/books/1');
    books.set('1', { title: 'Dune Messiah', version: 2 });
    clock += 61_000;
    const second = await cache.get('/books/1');
    expect(second.outcome).toBe('refetched');
    expect(second.body).toContain('Dune Messiah');
  });

  it('does not store the response to an authenticated request (it is private)', async () => {
    const cache = new CachingClient(origin, true);
    await cache.get('/books/1', { authorization: 'Bearer abc' });
    expect(cache.has('/books/1')).toBe(false);
  });
});

describe('when a private cache reads a private, no-cache resource', () => {
  it('revalidates the second read and gets a 304', async () => {
    const cache = new CachingClient(origin, false);
    const first = await cache.get('/orders/7');
    expect(first.outcome).toBe('network');
    const second = await cache.get('/orders/7');
    expect(second).toEqual({ outcome: 'revalidated', body: first.body, status: 200 });
  });

  it('is never stored by a shared cache', async () => {
    const cache = new CachingClient(origin, true);
    await cache.get('/orders/7');
    expect(cache.has('/orders/7')).toBe(false);
  });
});
