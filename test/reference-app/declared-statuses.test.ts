import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createRemoteJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBookStore } from '../../examples/reference-app/books/book-store.js';
import type { StoreOverrides } from '../../examples/reference-app/composition-root.js';
import { MemoryOrderStore } from '../../examples/reference-app/orders/order-store.js';
import { MemoryStandardStore } from '../../examples/reference-app/standards/standard-store.js';
import { jwtVerifier } from '../../src/auth/index.js';
import { redisIdempotencyStore } from '../../src/idempotency/index.js';
import type { OpenApiDocument } from '../../src/openapi/index.js';
import { pathItemOperations } from '../../src/openapi/types.js';
import { redisRateLimitStore } from '../../src/ratelimit/index.js';
import { operationMatcher } from '../../src/testing/operation-matcher.js';
import { nodeClient, type TestClient, type TestResponse } from '../support/clients.js';
import { gate } from '../support/gate.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * The other direction of the suite's recording hook (`test/support/described-apps.ts` holds every
 * response to the document): every status the served `/openapi.json` declares for an operation is
 * provoked here, over a real socket, from the reference app as it is composed (configuration and
 * the stores and verifier `createReferenceApp` accepts). A declared status no request can bring
 * about fails the last test. Self-contained, so that it does not depend on which other files ran
 * (vitest isolates files); the last test needs the others of this file to have run before it.
 */

let served: OpenApiDocument;
/** The document of the app whose limiter keeps its counts in Redis and refuses requests while it is down (503). */
let servedClosed: OpenApiDocument;
let match: ReturnType<typeof operationMatcher>;
/** `METHOD /template status` of every response received. */
const seen = new Set<string>();
const clients: TestClient[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

async function open(env: NodeJS.ProcessEnv = {}, stores: StoreOverrides = {}): Promise<TestClient> {
  const client = await nodeClient(referenceApp(env, stores).app);
  clients.push(client);
  return client;
}

interface Init {
  readonly token?: string;
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: unknown;
}

/** One request, recorded under the operation it addresses (and checked against the document by the client). */
async function send(
  client: TestClient,
  method: string,
  path: string,
  init: Init = {},
): Promise<TestResponse> {
  const headers: Record<string, string | readonly string[]> = { ...init.headers };
  if (init.token !== undefined) headers.authorization ??= init.token;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  // node:http sends an array as repeated field lines (two Authorization fields, below).
  const response = await client.request(method, path, { headers: headers as Record<string, string>, body });
  const operation = match(method, path.split('?')[0]!);
  if (operation !== undefined)
    seen.add(`${operation.method.toUpperCase()} ${operation.path} ${response.status}`);
  return response;
}

/**
 * A point a store call waits at once armed: the request that reaches it is still in progress (its
 * idempotency key claimed) until the test releases it.
 */
function holdPoint() {
  let armed: { readonly reached: () => void; readonly released: Promise<void> } | undefined;
  return {
    arm() {
      const reached = gate();
      const released = gate();
      armed = { reached: reached.open, released: released.promise };
      return { reached: reached.promise, release: released.open };
    },
    async pass() {
      const held = armed;
      if (held === undefined) return;
      armed = undefined;
      held.reached();
      await held.released;
    },
  };
}

const books = holdPoint();
const orders = holdPoint();
const standards = holdPoint();

class HeldBookStore extends MemoryBookStore {
  override async get(id: number) {
    await books.pass();
    return super.get(id);
  }
}
class HeldOrderStore extends MemoryOrderStore {
  override async find(id: number) {
    await orders.pass();
    return super.find(id);
  }
}
class HeldStandardStore extends MemoryStandardStore {
  override async find(id: string) {
    await standards.pass();
    return super.find(id);
  }
}

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Redis client for a server that is down: no retries, no queue, so every command fails at once. */
async function unreachableRedis(): Promise<Redis> {
  const client = new Redis(await closedPort(), '127.0.0.1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  cleanups.push(async () => client.disconnect());
  return client;
}

/** A rate-limit store on a Redis that is down. */
async function downLimits() {
  return redisRateLimitStore({ client: await unreachableRedis(), prefix: 'declared-statuses:' });
}

const OWNER = await bearer('1');
const STRANGER = await bearer('2');
const STANDARDS = await bearer('1', 'standards:read standards:write');
const NO_SCOPES = await bearer('1', 'other:scope');

/** A request its operation answers with success (in the app `operationsOf` prepared). */
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

let setUps = 0;

/** The success request of every operation, after creating the order and standard they address. */
async function operationsOf(client: TestClient): Promise<Operation[]> {
  const n = ++setUps;
  const order = await send(client, 'POST', '/orders', { token: OWNER, body: { bookId: 1, quantity: 2 } });
  const standard = await send(client, 'POST', '/api/v1/standards', {
    token: STANDARDS,
    headers: { 'idempotency-key': `set-up-${n}` },
    body: { code: `RFC-${1000 + n}`, name: 'HTTP Semantics', status: 'draft' },
  });
  const orderId = order.body.data.id as string;
  const payment = await send(client, 'POST', `/orders/${orderId}/payments`, { token: OWNER });
  const standardId = standard.body.data.id as string;
  const standardTag = (await send(client, 'GET', `/api/v1/standards/${standardId}`, { token: STANDARDS }))
    .headers.etag!;
  const operations: Operation[] = [
    { method: 'GET', path: '/health/live' },
    { method: 'GET', path: '/health/ready' },
    { method: 'GET', path: '/books' },
    { method: 'GET', path: '/books/1' },
    { method: 'POST', path: '/orders', token: OWNER, body: { bookId: 1, quantity: 1 } },
    { method: 'GET', path: `/orders/${orderId}`, token: OWNER },
    {
      method: 'PATCH',
      path: `/orders/${orderId}`,
      token: OWNER,
      body: { quantity: 3 },
      headers: { 'if-match': order.headers.etag! },
    },
    { method: 'DELETE', path: `/orders/${orderId}`, token: OWNER },
    { method: 'POST', path: `/orders/${orderId}/payments?discount=WELCOME10`, token: OWNER },
    { method: 'GET', path: payment.headers.location!, token: OWNER },
    { method: 'GET', path: '/v1/users/1', token: OWNER },
    { method: 'GET', path: '/v2/users/1', token: OWNER },
    { method: 'GET', path: '/users/1', token: OWNER },
    { method: 'GET', path: '/users/1/orders', token: OWNER },
    { method: 'GET', path: `/users/1/orders/${orderId}`, token: OWNER },
    { method: 'GET', path: '/users/1/account-type', token: OWNER },
    { method: 'GET', path: '/api/v1/standards', token: STANDARDS },
    {
      method: 'POST',
      path: '/api/v1/standards',
      token: STANDARDS,
      headers: { 'idempotency-key': 'create-rfc-9111' },
      body: { code: 'RFC-9111', name: 'HTTP Caching', status: 'draft' },
    },
    { method: 'GET', path: `/api/v1/standards/${standardId}`, token: STANDARDS },
    { method: 'QUERY', path: '/api/v1/standards', token: STANDARDS, body: { status: ['draft'] } },
    {
      method: 'GET',
      path: (
        await send(client, 'QUERY', '/api/v1/standards', { token: STANDARDS, body: { codePrefix: ['RFC-'] } })
      ).headers.location!,
      token: STANDARDS,
    },
    {
      method: 'PATCH',
      path: `/api/v1/standards/${standardId}`,
      token: STANDARDS,
      body: { status: 'published' },
      headers: { 'if-match': standardTag },
    },
    { method: 'DELETE', path: `/api/v1/standards/${standardId}`, token: STANDARDS },
    { method: 'GET', path: '/openapi.json' },
    { method: 'GET', path: '/docs' },
    { method: 'GET', path: '/docs/init.js' },
  ];
  // Deletes last: the other operations read what they would delete.
  return [
    ...operations.filter((op) => op.method !== 'DELETE'),
    ...operations.filter((op) => op.method === 'DELETE'),
  ];
}

const send$ = (client: TestClient, op: Operation, extra: Init = {}) =>
  send(client, op.method, op.path, {
    ...(op.token === undefined ? {} : { token: op.token }),
    ...(op.body === undefined ? {} : { body: op.body }),
    ...extra,
    headers: { ...op.headers, ...extra.headers },
  });

beforeAll(async () => {
  const client = await open();
  served = JSON.parse((await client.request('GET', '/openapi.json')).text) as OpenApiDocument;
  const closed = await open({ RATE_LIMIT_ON_STORE_ERROR: 'closed' }, { rateLimitStore: await downLimits() });
  servedClosed = JSON.parse((await closed.request('GET', '/openapi.json')).text) as OpenApiDocument;
  match = operationMatcher(served);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

describe('every status the reference app declares is one it sends', () => {
  it('answers every operation with success', async () => {
    const client = await open();
    for (const op of await operationsOf(client)) {
      const response = await send$(client, op);
      expect(response.status, `${op.method} ${op.path}`).toBeLessThan(300);
    }
  });
});

describe('what every operation can answer', () => {
  let client: TestClient;
  let operations: Operation[];
  beforeAll(async () => {
    client = await open();
    operations = await operationsOf(client);
  });
  const each = async (test: (op: Operation) => Promise<void>) => {
    for (const op of operations) await test(op);
  };

  it('400 for two Authorization fields (authenticate)', () =>
    each(async (op) => {
      const response = await send$(client, op, { headers: { authorization: [OWNER, OWNER] } });
      expect(response.status, `${op.method} ${op.path}`).toBe(400);
    }));

  it('401 for a token that is not valid (authenticate)', () =>
    each(async (op) => {
      const response = await send$(client, op, { token: 'Bearer not.a.token' });
      expect(response.status, `${op.method} ${op.path}`).toBe(401);
    }));

  it('406 when Accept names nothing the operation produces', () =>
    each(async (op) => {
      const response = await send$(client, op, { headers: { accept: 'image/gif' } });
      expect(response.status, `${op.method} ${op.path}`).toBe(406);
    }));

  it('429 once the quota is spent (rateLimit), on every operation it limits', () =>
    each(async (op) => {
      const limited = await open({ RATE_LIMIT_MAX: '1' });
      await send$(limited, op);
      const response = await send$(limited, op);
      const exempt = op.path.startsWith('/health/');
      if (!exempt) {
        expect(response.status, `${op.method} ${op.path}`).toBe(429);
        return;
      }
      // Probes are exempt from the app's limiter; refused credentials still count (failureLimit).
      expect(response.status, `${op.method} ${op.path}`).toBe(200);
      await send$(limited, op, { token: 'Bearer not.a.token' });
      const refused = await send$(limited, op, { token: 'Bearer not.a.token' });
      expect(refused.status, `${op.method} ${op.path}`).toBe(429);
    }));

  it('304 for a representation the client holds, on every operation that declares it', () =>
    each(async (op) => {
      const declares = match(op.method, op.path)?.operation.responses['304'] !== undefined;
      if (!declares) return;
      const first = await send$(client, op);
      const response = await send$(client, op, { headers: { 'if-none-match': first.headers.etag! } });
      expect(response.status, `${op.method} ${op.path}`).toBe(304);
    }));
});

describe('when a dependency fails', () => {
  it('500 on every operation when the token verifier cannot reach its key set', async () => {
    // A JWKS endpoint that refuses connections.
    const port = await closedPort();
    const tokenVerifier = jwtVerifier({
      key: createRemoteJWKSet(new URL(`http://127.0.0.1:${port}/jwks`)),
      algorithms: ['RS256'],
    });
    const client = await open({}, { tokenVerifier });
    const operations = await operationsOf(await open());
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'k' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: '1', exp: 4e9 })).toString('base64url');
    const token = `Bearer ${header}.${payload}.${Buffer.from('signature').toString('base64url')}`;
    for (const op of operations) {
      const response = await send$(client, op, { token });
      expect(response.status, `${op.method} ${op.path}`).toBe(500);
    }
  });
});

describe('what the conventions of each operation answer', () => {
  let client: TestClient;
  let operations: Operation[];
  beforeAll(async () => {
    client = await open(
      {},
      {
        bookStore: new HeldBookStore(),
        orderStore: new HeldOrderStore(),
        standardStore: new HeldStandardStore(),
      },
    );
    operations = await operationsOf(client);
  });
  const writes = () => operations.filter((op) => op.method === 'POST' || op.method === 'PATCH');
  const at = (method: string, prefix: string) =>
    operations.find((op) => op.method === method && op.path.startsWith(prefix))!;

  it('404 for what does not exist (or is not the caller’s)', async () => {
    const missing: Array<[string, string, string?]> = [
      ['GET', '/books/999'],
      ['GET', '/orders/999', OWNER],
      ['PATCH', '/orders/999', OWNER],
      ['DELETE', '/orders/999', OWNER],
      ['POST', '/orders/999/payments', OWNER],
      ['GET', '/orders/999/payments/1', OWNER],
      ['GET', '/v1/users/9', await bearer('9')],
      ['GET', '/v2/users/9', await bearer('9')],
      ['GET', '/users/9', await bearer('9')],
      ['GET', '/users/9/orders', await bearer('9')],
      ['GET', '/users/9/account-type', await bearer('9')],
      ['GET', '/users/1/orders/999', OWNER],
      ['GET', '/api/v1/standards/missing', STANDARDS],
      ['PATCH', '/api/v1/standards/missing', STANDARDS],
      ['DELETE', '/api/v1/standards/missing', STANDARDS],
      ['GET', '/api/v1/standard-queries/missing', STANDARDS],
      ['GET', '/docs/missing.js'],
    ];
    for (const [method, path, token] of missing) {
      const init = {
        ...(token === undefined ? {} : { token }),
        ...(method === 'PATCH' ? { body: { quantity: 1 }, headers: { 'if-match': '"1"' } } : {}),
      };
      expect((await send(client, method, path, init)).status, `${method} ${path}`).toBe(404);
    }
  });

  it('403 for a caller without the right (ownership, scopes)', async () => {
    for (const op of operations) {
      const token = op.path.startsWith('/api/v1/standard')
        ? NO_SCOPES
        : /^\/(v\d\/)?users\//.test(op.path)
          ? STRANGER
          : undefined;
      if (token === undefined) continue;
      expect((await send$(client, op, { token })).status, `${op.method} ${op.path}`).toBe(403);
    }
  });

  it('413 for a body over the limit and 415 for one that is not JSON', async () => {
    for (const op of [...writes(), at('QUERY', '/api/v1/standards')]) {
      // A write that takes no body reads one only to key it (Idempotency-Key): there it has its limits.
      const keyed = (kind: string): Record<string, string> =>
        op.body === undefined ? { 'idempotency-key': `${kind}-${op.path}` } : {};
      const padding = JSON.stringify({ padding: 'x'.repeat(200 * 1024) });
      const big = await send$(client, op, { body: padding, headers: keyed('big') });
      expect(big.status, `${op.method} ${op.path}`).toBe(413);
      const text = await send$(client, op, {
        // Without a declared body, a content coding is what it cannot read (RFC 9110 section 8.4).
        headers: {
          'content-type': 'text/plain',
          ...keyed('text'),
          ...(op.body === undefined ? { 'content-encoding': 'gzip' } : ({} as Record<string, string>)),
        },
        ...(op.body === undefined ? { body: 'text' } : {}),
      });
      expect(text.status, `${op.method} ${op.path}`).toBe(415);
    }
  });

  it('422 for an Idempotency-Key used again with another body', async () => {
    for (const op of writes()) {
      const key = { 'idempotency-key': `reused-${op.method}-${op.path}` };
      await send$(client, op, { headers: key });
      const other = JSON.stringify({ ...(op.body as object), unexpected: true });
      expect((await send$(client, op, { headers: key, body: other })).status, `${op.method} ${op.path}`).toBe(
        422,
      );
    }
  });

  it('409 for an Idempotency-Key whose first request is still in progress, or a duplicate', async () => {
    const held: Array<[ReturnType<typeof holdPoint>, Operation]> = [
      [books, at('POST', '/orders')],
      [orders, at('PATCH', '/orders/')],
      [orders, at('POST', '/orders/')],
      [standards, at('PATCH', '/api/v1/standards/')],
    ];
    for (const [point, op] of held) {
      const key = { 'idempotency-key': `in-progress-${op.method}-${op.path}` };
      const { reached, release } = point.arm();
      const first = send$(client, op, { headers: key });
      await reached;
      expect((await send$(client, op, { headers: key })).status, `${op.method} ${op.path}`).toBe(409);
      release();
      await first;
    }
    // The route's own 409: a standard with this code exists.
    const create = at('POST', '/api/v1/standards');
    const again = await send$(client, create, { headers: { 'idempotency-key': 'same-code-again' } });
    expect(again.status).toBe(409);
  });

  it('412 for a stale If-Match and 428 for none where it is required', async () => {
    for (const op of operations.filter((o) => o.method === 'PATCH' || o.method === 'DELETE')) {
      const stale = await send$(client, op, { headers: { 'if-match': '"stale"' } });
      expect(stale.status, `${op.method} ${op.path}`).toBe(412);
      if (op.method !== 'PATCH') continue;
      const bare = { ...op, headers: {} };
      expect((await send$(client, bare)).status, `${op.method} ${op.path}`).toBe(428);
    }
  });
});

describe('when a store is unreachable', () => {
  it('503 for a write with an Idempotency-Key, when the idempotency store is down', async () => {
    const redis = await unreachableRedis();
    const idempotencyStore = redisIdempotencyStore({ client: redis, prefix: 'declared-statuses:' });
    const client = await open({}, { idempotencyStore });
    const operations = await operationsOf(await open());
    for (const op of operations.filter((o) => o.method === 'POST' || o.method === 'PATCH')) {
      const response = await send$(client, op, { headers: { 'idempotency-key': `down-${op.path}` } });
      expect(response.status, `${op.method} ${op.path}`).toBe(503);
    }
  });

  it('503 from the rate limiter when its store is down and it fails closed; unlimited when open', async () => {
    const rateLimitStore = await downLimits();
    const operations = await operationsOf(await open());
    const closed = await open({ RATE_LIMIT_ON_STORE_ERROR: 'closed' }, { rateLimitStore });
    const open_ = await open({ RATE_LIMIT_ON_STORE_ERROR: 'open' }, { rateLimitStore });
    for (const op of operations) {
      // Probes skip the limiter, but refused credentials go through it (failureLimit).
      const probe = op.path.startsWith('/health/');
      const token = probe ? { token: 'Bearer not.a.token' } : {};
      expect((await send$(closed, op, token)).status, `${op.method} ${op.path}`).toBe(503);
      expect((await send$(open_, op, token)).status, `${op.method} ${op.path}`).toBeLessThan(500);
    }
  });

  it('503 from the readiness probe when a store does not answer', async () => {
    const redis = await unreachableRedis();
    const client = await open({}, { readinessChecks: [{ name: 'redis', check: () => redis.ping() }] });
    const response = await send(client, 'GET', '/health/ready');
    expect(response.status).toBe(503);
    expect(response.body.errors[0].detail).toBe('Not ready: redis did not answer.');
  });
});

describe('coverage of the served document', () => {
  it('has seen every declared status of every operation', () => {
    const declared = [served, servedClosed].flatMap((document) => pairsOf(document));
    expect(declared.length).toBeGreaterThan(100);
    expect([...new Set(declared)].filter((pair) => !seen.has(pair))).toEqual([]);
  });
});

/** `METHOD /template status` of every status the document declares. */
function pairsOf(document: OpenApiDocument): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    pathItemOperations(item).flatMap(([method, operation]) =>
      Object.keys(operation.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`),
    ),
  );
}
