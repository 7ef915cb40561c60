/**
 * Issue 35, tried as a new user would, with the reference app on its defaults: a keyed write runs
 * once whatever the size of its answer, and one user makes a thousand keyed writes a day, on every
 * adapter and on every idempotency store.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, serve } from '../../examples/reference-app/serve.js';
import { dropTablesUnder } from '../support/postgres.js';
import {
  bearer,
  referenceApp,
  type ServedReferenceApp,
  servedReferenceApp,
} from '../support/reference-app.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const WRITER = 'standards:read standards:write';

/** A standard whose 201 is about 12 KiB: a description of 2,000 U+0001, each written `\u0001`. */
const bigStandard = (code: string) => ({
  code,
  name: 'Control characters',
  description: '\u0001'.repeat(2_000),
});

async function post(base: string, path: string, token: string, key: string, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** The retry of a keyed write whose answer is 12 KiB is that answer, byte for byte: it ran once. */
async function expectReplayedOnce(base: string) {
  const token = await bearer('1', WRITER);
  const code = `BIG-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const first = await post(base, '/api/v1/standards', token, `big-${code}`, bigStandard(code));
  expect(first.status).toBe(201);
  expect(first.bytes.length).toBeGreaterThan(12_000);
  const retry = await post(base, '/api/v1/standards', token, `big-${code}`, bigStandard(code));
  // Before: 409 duplicate-code, the handler having run a second time.
  expect(retry.status).toBe(201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.bytes.equals(first.bytes)).toBe(true);
}

describe.each(ADAPTERS)('a keyed standard whose 201 is 12 KiB, served by %s', async (adapter) => {
  const served = await serve(adapter, referenceApp().app, 0);
  afterAll(() => served.close());
  it('is replayed on retry, byte for byte, and created once', () =>
    expectReplayedOnce(`http://127.0.0.1:${served.port}`));
});

const STORES = [
  { store: 'memory', env: {} },
  { store: 'redis', env: { IDEMPOTENCY_STORE: 'redis' }, needs: 'Redis' },
  { store: 'postgres', env: { IDEMPOTENCY_STORE: 'postgres' }, needs: 'PostgreSQL' },
  // The data in PostgreSQL too: each record in its write's transaction (`transactional: true`).
  {
    store: 'postgres, in the write’s transaction',
    env: { IDEMPOTENCY_STORE: 'postgres', DATA_STORE: 'postgres' },
    needs: 'PostgreSQL',
  },
] as const;

describe.each(STORES)('the reference app on its defaults, idempotency store $store', async (option) => {
  const available = !('needs' in option) || (await serviceAvailable(option.needs));
  const prefix = uniquePrefix('sizes').toLowerCase();
  let app: ServedReferenceApp;
  beforeAll(async () => {
    if (!available) return;
    // The rate limit raised: this is about the idempotency budgets, not the request rate.
    app = await servedReferenceApp({ ...option.env, STORE_PREFIX: prefix, RATE_LIMIT_MAX: '1000000' });
  });
  afterAll(async () => {
    if (!available) return;
    await app.stop();
    if (option.store === 'redis') {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
    if (option.store.startsWith('postgres')) await dropTablesUnder(prefix);
  });

  it.skipIf(!available)('replays a keyed 12 KiB answer byte for byte', () => expectReplayedOnce(app.url));

  it.skipIf(!available)(
    'takes 1,000 keyed writes of one user in a day, a third of them 12 KiB answers: all 201',
    async () => {
      const token = await bearer('7', WRITER);
      const statuses = new Map<number, number>();
      const lanes = Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; i < 1_000; i += 4) {
          const written =
            i % 3 === 0
              ? await post(app.url, '/api/v1/standards', token, `w-${prefix}-${i}`, bigStandard(`W-${i}`))
              : await post(app.url, '/orders', token, `w-${prefix}-${i}`, {
                  bookId: 1,
                  quantity: 1 + (i % 5),
                });
          statuses.set(written.status, (statuses.get(written.status) ?? 0) + 1);
        }
      });
      await Promise.all(lanes);
      // Before: 429 idempotency-quota-exceeded from the 101st (memory) or about the 930th (Redis,
      // PostgreSQL: 4 MiB of 12 KiB answers).
      expect(Object.fromEntries(statuses)).toEqual({ 201: 1_000 });
    },
    120_000,
  );
});
