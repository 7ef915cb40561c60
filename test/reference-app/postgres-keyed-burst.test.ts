import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTablesUnder } from '../support/postgres.js';
import { bearer, type ServedReferenceApp, servedReferenceApp } from '../support/reference-app.js';
import { serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');

/** Keyed PATCHes sent at once by one user: three times the default pool of 10 connections. */
const BURST = 30;
/** The reference app's default `DATABASE_POOL_SIZE`. */
const POOL_SIZE = 10;
/** How much slower another user's read may get while the burst runs (docs/deployment.md). */
const ALLOWED_SLOWDOWN_MS = 100;

/**
 * One connection per keyed write on PostgreSQL, from claim to completion (docs/idempotency.md,
 * "PostgreSQL: the record in the handler's transaction"): a keyed `PATCH /orders/{id}` loads the order
 * for its `If-Match` through the transaction its claim opened, so a burst of them never holds one
 * connection while waiting for a second. The app is wired as main.ts wires it, on the default pool.
 */
describe.runIf(available)('a burst of keyed PATCHes by one user on PostgreSQL', () => {
  const prefix = uniquePrefix('burst').toLowerCase();
  let app: ServedReferenceApp;

  beforeAll(async () => {
    app = await servedReferenceApp({
      DATA_STORE: 'postgres',
      IDEMPOTENCY_STORE: 'postgres',
      STORE_PREFIX: prefix,
      RATE_LIMIT_MAX: '1000000',
    });
  }, 30_000);
  afterAll(async () => {
    await app?.stop();
    await dropTablesUnder(prefix);
  }, 30_000);

  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await response.arrayBuffer();
    return { status: response.status, headers: response.headers };
  };
  /** How long another user's `GET /books/1` takes, in milliseconds; it must answer 200. */
  const timedRead = (authorization: string) =>
    timed(async () => {
      const { status } = await send('GET', '/books/1', { authorization });
      expect(status).toBe(200);
    });
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it('answers every PATCH without a 5xx, keeps another user within 100 ms of unloaded, stays ready', async () => {
    const burster = await bearer(`burster-${prefix}`);
    const other = await bearer(`reader-${prefix}`);
    const orders: Array<{ path: string; etag: string }> = [];
    for (let i = 0; i < BURST; i++) {
      const made = await send('POST', '/orders', { authorization: burster }, { bookId: 1, quantity: 1 });
      expect(made.status).toBe(201);
      orders.push({ path: made.headers.get('location')!, etag: made.headers.get('etag')! });
    }

    const burst = (round: number, quantity: number) =>
      Promise.all(
        orders.map(async (order, i) => {
          const answer = await send(
            'PATCH',
            order.path,
            {
              authorization: burster,
              'if-match': order.etag,
              'idempotency-key': `"burst-${prefix}-${round}-${i}"`,
            },
            { quantity },
          );
          order.etag = answer.headers.get('etag') ?? order.etag;
          return answer;
        }),
      );
    // A serving instance's pool is warm: a first burst, then as many reads at once as the pool has
    // connections, open them all (a new connection's handshake is not what this measures).
    expect((await burst(0, 2)).map((a) => a.status)).toEqual(Array(BURST).fill(200));
    await Promise.all(Array.from({ length: POOL_SIZE }, () => timedRead(other)));

    // Unloaded first, in the same process, on the same warm pool: the median of ten.
    const unloaded = median(await sequence(10, () => timedRead(other)));
    // Sent while the burst's requests are in flight, with a request that needs no database: what
    // that one takes is the CPU the burst costs this process, which a busy machine stretches; a read
    // waiting for a connection the burst holds takes longer by the whole burst.
    const [answers, reads, cpuOnly, readiness] = await Promise.all([
      burst(1, 3),
      Promise.all([timedRead(other), timedRead(other), timedRead(other)]),
      timed(() => send('GET', '/health/live', {})),
      send('GET', '/health/ready', {}),
    ]);

    // Each checked on its own, so a failure names every broken promise at once.
    expect.soft(answers.map((a) => a.status)).toEqual(Array(BURST).fill(200));
    expect.soft(readiness.status).toBe(200);
    expect.soft(Math.max(...reads)).toBeLessThan(unloaded + cpuOnly + ALLOWED_SLOWDOWN_MS);
    expect.soft(app.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  }, 60_000);
});

/** How long `call` takes, in milliseconds. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** `count` calls of `call`, one after the other. */
async function sequence<T>(count: number, call: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < count; i++) results.push(await call());
  return results;
}
