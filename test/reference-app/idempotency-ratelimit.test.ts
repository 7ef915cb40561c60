import { Redis } from 'ioredis';
import { parseList } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { connectInfrastructure, type Infrastructure } from '../../examples/reference-app/infrastructure.js';
import { nodeClient, type TestClient } from '../support/clients.js';
import { dropTablesUnder } from '../support/postgres.js';
import { APP_MATRIX, bearer, memoryLogger, referenceApp, referenceAppOn } from '../support/reference-app.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

/** Leave nothing behind in the shared servers: this run's keys or table. */
async function removeTestData(store: string, prefix: string): Promise<void> {
  if (store === 'Redis') {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  } else {
    await dropTablesUnder(prefix);
  }
}

const ORDER = { bookId: 2, quantity: 3 };

async function orderCount(client: TestClient, token: string): Promise<number> {
  const response = await client.request('GET', '/users/1/orders?page[size]=100', {
    headers: { authorization: token },
  });
  expect(response.status).toBe(200);
  return response.body.data.length;
}

function postOrder(client: TestClient, token: string, key: string, body: unknown = ORDER) {
  return client.request('POST', '/orders', {
    headers: { 'content-type': 'application/json', authorization: token, 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

describe.each(APP_MATRIX)(
  'idempotent orders through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let client: TestClient;
    let token: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      token = await bearer('1');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    it('replays a retried POST byte for byte and creates one order', async () => {
      const before = await orderCount(client, token);
      const first = await postOrder(client, token, '"order-1"');
      const retry = await postOrder(client, token, 'order-1'); // the bare form names the same key
      expect(first.status).toBe(201);
      expect(retry.text).toBe(first.text);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(await orderCount(client, token)).toBe(before + 1);
    });

    it('answers 422 to the same key with another body, and creates nothing', async () => {
      await postOrder(client, token, '"order-2"');
      const before = await orderCount(client, token);
      const reused = await postOrder(client, token, '"order-2"', { bookId: 2, quantity: 4 });
      expect(reused.status).toBe(422);
      expect(await orderCount(client, token)).toBe(before);
    });

    it('creates exactly one order from 50 concurrent identical requests', async () => {
      const before = await orderCount(client, token);
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => postOrder(client, token, '"burst"')),
      );
      for (const response of responses) expect([201, 409]).toContain(response.status);
      const created = responses.filter((r) => r.status === 201);
      for (const response of created) expect(response.text).toBe(created[0]!.text);
      expect(await orderCount(client, token)).toBe(before + 1);
    });

    it('refuses bad keys with 400 and runs nothing', async () => {
      const before = await orderCount(client, token);
      for (const key of ['""', `"${'k'.repeat(256)}"`, 'a, b']) {
        const response = await postOrder(client, token, key);
        expect(response.status, key).toBe(400);
        expect(response.body.errors[0].source).toEqual({ header: 'Idempotency-Key' });
      }
      expect(await orderCount(client, token)).toBe(before);
    });
  },
);

describe('rate limiting in the reference app', () => {
  let client: TestClient;

  beforeAll(async () => {
    client = await nodeClient(referenceApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '60' }).app);
  });
  afterAll(() => client.close());

  it('limits every route, says so in structured headers, and answers 429 with Retry-After past the quota', async () => {
    const responses = [];
    for (let i = 0; i < 7; i++) responses.push(await client.request('GET', i % 2 ? '/books' : '/nowhere'));
    const policy = parseList(responses[0]!.headers['ratelimit-policy']!);
    expect(policy[0]![0]).toBe('default');
    expect(Object.fromEntries(policy[0]![1])).toEqual({ q: 5, w: 60 });
    const remaining = responses
      .slice(0, 5)
      .map((r) => Object.fromEntries(parseList(r.headers.ratelimit!)[0]![1]).r);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = responses[5]!;
    expect(refused.status).toBe(429);
    const t = Object.fromEntries(parseList(refused.headers.ratelimit!)[0]![1]).t as number;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(t);
    expect(refused.body.errors[0].status).toBe('429');
    expect(refused.headers['x-frame-options']).toBe('DENY');
  });
});

for (const [name, store, env] of [
  ['Redis', 'Redis', { IDEMPOTENCY_STORE: 'redis', RATE_LIMIT_STORE: 'redis' }],
  ['PostgreSQL', 'PostgreSQL', { IDEMPOTENCY_STORE: 'postgres' }],
  // Orders in PostgreSQL too: each order and its idempotency record share one transaction.
  [
    'PostgreSQL data and idempotency',
    'PostgreSQL',
    { DATA_STORE: 'postgres', IDEMPOTENCY_STORE: 'postgres' },
  ],
] as const) {
  const available = await serviceAvailable(store);
  describe.skipIf(!available)(`the reference app with ${name} stores`, () => {
    let infrastructure: Infrastructure;
    let client: TestClient;
    let token: string;

    const prefix = uniquePrefix('refapp').toLowerCase();

    beforeAll(async () => {
      const config = configFromEnv({
        ...process.env,
        ...env,
        RATE_LIMIT_MAX: '100000',
        STORE_PREFIX: prefix,
      });
      infrastructure = await connectInfrastructure(config);
      client = await nodeClient(createReferenceApp(config, memoryLogger(), infrastructure));
      token = await bearer('1');
    });
    afterAll(async () => {
      await client.close();
      await infrastructure.close();
      await removeTestData(name, prefix);
    });

    it('creates exactly one order from 20 concurrent identical requests', async () => {
      const key = `"ref-${name}-${Date.now()}-${Math.random()}"`;
      const responses = await Promise.all(Array.from({ length: 20 }, () => postOrder(client, token, key)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
      for (const status of statuses) expect([201, 409]).toContain(status);
      expect(await orderCount(client, token)).toBe(1);
    });

    it('answers a keyed duplicate standard code with 409 and replays that 409, then writes again', async () => {
      const writer = await bearer('1', 'standards:read standards:write');
      const post = (key: string, body: unknown) =>
        client.request('POST', '/api/v1/standards/', {
          headers: { 'content-type': 'application/json', authorization: writer, 'idempotency-key': key },
          body: JSON.stringify(body),
        });
      const code = `DUP-${name.length}-${Date.now()}`;
      expect((await post('"dup-1"', { code, name: 'First' })).status).toBe(201);
      // The refused INSERT must not break the transaction the idempotency record is written in.
      const refused = await post('"dup-2"', { code, name: 'Second' });
      expect(refused.status).toBe(409);
      const replayed = await post('"dup-2"', { code, name: 'Second' });
      expect(replayed.status).toBe(409);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect((await post('"dup-3"', { code: `${code}-B`, name: 'Third' })).status).toBe(201);
    });
  });
}
