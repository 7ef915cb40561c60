import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, startReferenceApp } from '../support/app-process.js';
import { call } from '../support/http-call.js';
import { dropTablesUnder } from '../support/postgres.js';
import { bearer } from '../support/reference-app.js';
import { DATABASE_URL, REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const postgres = await serviceAvailable('PostgreSQL');
const redis = postgres && (await serviceAvailable('Redis'));

describe.skipIf(!postgres)('the reference app as processes on a shared PostgreSQL', () => {
  const prefix = uniquePrefix('procs').toLowerCase();
  const running: AppProcess[] = [];
  let pool: pg.Pool;
  const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    DATA_STORE: 'postgres',
    IDEMPOTENCY_STORE: 'postgres',
    STORE_PREFIX: prefix,
    RATE_LIMIT_MAX: '100000',
    ...more,
  });
  const start = async (more?: NodeJS.ProcessEnv) => {
    const app = await startReferenceApp(env(more));
    running.push(app);
    return app.urls[0]!;
  };

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((app) => app.stop()));
  });
  afterAll(async () => {
    await dropTablesUnder(prefix, pool);
    await pool.end();
  });

  const ordersOf = async (owner: string) =>
    Number(
      (await pool.query(`SELECT count(*) AS n FROM ${prefix}_orders WHERE owner_id = $1`, [owner])).rows[0].n,
    );
  const recordOf = async (owner: string, key: string) =>
    (
      await pool.query(`SELECT state FROM ${prefix}_idempotency WHERE scope_key LIKE $1`, [
        `%${owner}%${key}%`,
      ])
    ).rows;

  it('loses the order, its claim and its record when the process dies before the commit; the retry runs at once', async () => {
    const owner = `crash-${Date.now()}`;
    const auth = { authorization: await bearer(owner), 'idempotency-key': '"crash-1"' };
    const order = { bookId: 3, quantity: 2 };

    const doomed = await startReferenceApp(env({ REFERENCE_APP_TEST_CRASH: 'after-order-insert' }));
    // The process SIGKILLs itself inside the transaction, right after the INSERT: no response comes.
    await expect(call(doomed.urls[0]!, 'POST', '/orders', auth, order)).rejects.toThrow();
    expect(await doomed.exited).toBe('SIGKILL');

    // The connection died with the process, so PostgreSQL rolled the transaction back, and the claim
    // was made in it: no order, no record, nothing to wait for.
    expect(await ordersOf(owner)).toBe(0);
    expect(await recordOf(owner, 'crash-1')).toEqual([]);

    const base = await start();
    const retried = await call(base, 'POST', '/orders', auth, order);
    expect(retried.status).toBe(201);
    const replayed = await call(base, 'POST', '/orders', auth, order);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('location')).toBe(retried.headers.get('location'));
    expect(await ordersOf(owner)).toBe(1);
    expect((await recordOf(owner, 'crash-1')).map((r) => r.state)).toEqual(['completed']);
  });

  describe.each([
    { idempotency: 'postgres', skip: false },
    { idempotency: 'redis', skip: !redis },
  ])('across a restart, with IDEMPOTENCY_STORE=$idempotency', ({ idempotency, skip }) => {
    afterAll(async () => {
      if (idempotency !== 'redis' || skip) return;
      const client = new Redis(REDIS_URL);
      const keys = await client.keys(`${prefix}:*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    });

    it.skipIf(skip)(
      'replays the order a key created, which is still that order, after a keyless one',
      async () => {
        const owner = `restart-${idempotency}-${Date.now()}`;
        const token = await bearer(owner);
        const key = `"restart-${idempotency}"`;
        const first = await start({ IDEMPOTENCY_STORE: idempotency });
        const created = await call(
          first,
          'POST',
          '/orders',
          { authorization: token, 'idempotency-key': key },
          {
            bookId: 5,
            quantity: 1,
          },
        );
        expect(created.status).toBe(201);
        const gone = await call(
          first,
          'POST',
          '/orders',
          { authorization: token },
          { bookId: 7, quantity: 1 },
        );
        const gonePath = gone.headers.get('location')!;
        expect((await call(first, 'DELETE', gonePath, { authorization: token })).status).toBe(204);
        await running.pop()!.stop();

        const second = await start({ IDEMPOTENCY_STORE: idempotency });
        const other = await call(
          second,
          'POST',
          '/orders',
          { authorization: token },
          { bookId: 6, quantity: 4 },
        );
        expect(other.status).toBe(201);
        expect(other.headers.get('location')).not.toBe(created.headers.get('location'));

        const again = await call(
          second,
          'POST',
          '/orders',
          { authorization: token, 'idempotency-key': key },
          {
            bookId: 5,
            quantity: 1,
          },
        );
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('location')).toBe(created.headers.get('location'));
        expect(again.body).toEqual(created.body);
        // The Location still names the order the key created, not the keyless one.
        const named = await call(second, 'GET', again.headers.get('location')!, { authorization: token });
        expect(named.status).toBe(200);
        expect(named.body.data).toEqual(created.body.data);
        // The tombstone outlived the restart: the repeated DELETE still answers 204, the GET 404.
        expect((await call(second, 'DELETE', gonePath, { authorization: token })).status).toBe(204);
        expect((await call(second, 'GET', gonePath, { authorization: token })).status).toBe(404);
      },
    );
  });

  it('lets exactly one of two PATCHes with the same If-Match win across two instances; the other gets 412', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const token = await bearer(`race-${Date.now()}`);
    for (let round = 0; round < 5; round++) {
      const placed = await call(a!, 'POST', '/orders', { authorization: token }, { bookId: 1, quantity: 1 });
      const path = placed.headers.get('location')!;
      const etag = placed.headers.get('etag')!;
      const patch = (base: string, quantity: number) =>
        call(base, 'PATCH', path, { authorization: token, 'if-match': etag }, { quantity });
      const outcomes = await Promise.all([patch(a!, 2), patch(b!, 3)]);
      expect(outcomes.map((o) => o.status).sort()).toEqual([200, 412]);
      const winner = outcomes.find((o) => o.status === 200)!;
      // The stored order is the winner's, at the version its ETag names, seen alike on both.
      for (const base of [a!, b!]) {
        const read = await call(base, 'GET', path, { authorization: token });
        expect(read.body.data.attributes.quantity).toBe(winner.body.data.attributes.quantity);
        expect(read.headers.get('etag')).toBe(winner.headers.get('etag'));
      }
    }
  });
});
