import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { created } from '../../src/core/response.js';
import type { Context } from '../../src/http/types.js';
import {
  heldClaims,
  type IdempotencyAdds,
  type IdempotencyStore,
  idempotency,
  postgresIdempotencyStore,
  type Queryable,
  REPLAYED_HEADER,
} from '../../src/idempotency/index.js';
import { gate } from '../support/gate.js';
import { requestView } from '../support/request.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { bodyOf } from './order-app.js';

const available = await serviceAvailable('PostgreSQL');
const ORDER = '{"bookId":7,"quantity":1}';

// Every case twice: on a client that waits for each answer, and on a pipelining one (`pipeline: true`),
// which sends BEGIN with the claim and COMMIT with the completion.
describe.skipIf(!available).each([
  { clients: 'sequential', pipeline: false },
  { clients: 'pipelining', pipeline: true },
])('when the PostgreSQL store shares the handler’s transaction ($clients clients)', ({ pipeline }) => {
  const prefix = uniquePrefix(pipeline ? 'idem_txp' : 'idem_tx').toLowerCase();
  let pool: pg.Pool;
  const clock = { t: 1_700_000_000_000 };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 20, pipeline });
    await postgresIdempotencyStore({ pool, table: `${prefix}_records` }).migrate();
    await pool.query(`CREATE TABLE ${prefix}_orders (id serial PRIMARY KEY, key text)`);
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${prefix}_records, ${prefix}_orders`);
    await pool.end();
  });

  const count = async (key: string) =>
    Number((await pool.query(`SELECT count(*) AS n FROM ${prefix}_orders WHERE key = $1`, [key])).rows[0].n);

  /** An order app whose handler writes through the transaction the store opened. */
  function transactionalApp(
    afterInsert: (ctx: Context & { readonly var: IdempotencyAdds }) => Promise<void> | void = () => {},
    on = pool,
  ) {
    const store = postgresIdempotencyStore({
      pool: on,
      table: `${prefix}_records`,
      transactional: true,
      now: () => clock.t,
    });
    const app = createApp({ logger: { error: () => {}, warn: () => {} } });
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store, leaseMs: 60_000, now: () => clock.t })],
      handler: async (ctx) => {
        const db: Queryable = ctx.var.idempotencyTransaction ?? pool;
        const key = ctx.request.headers.get('idempotency-key') ?? '';
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO ${prefix}_orders (key) VALUES ($1) RETURNING id`,
          [key],
        );
        await afterInsert(ctx);
        return created(`/orders/${rows[0]!.id}`, { data: { type: 'orders', id: String(rows[0]!.id) } });
      },
    });
    return app;
  }
  const post = (key: string) =>
    requestView('POST', '/orders', {
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: ORDER,
    });

  it('is called with plain values only: the claim token is the handle, never the request', async () => {
    const inner = postgresIdempotencyStore({
      pool,
      table: `${prefix}_records`,
      transactional: true,
      now: () => clock.t,
    });
    const calls: [string, ...unknown[]][] = [];
    const recorded =
      <A extends unknown[], R>(name: string, call: (...args: A) => R) =>
      (...args: A): R => {
        calls.push([name, ...args]);
        return call(...args);
      };
    const store: IdempotencyStore = {
      claim: recorded('claim', inner.claim.bind(inner)),
      renew: recorded('renew', inner.renew.bind(inner)),
      complete: recorded('complete', inner.complete.bind(inner)),
      release: recorded('release', inner.release.bind(inner)),
      begin: recorded('begin', inner.begin!.bind(inner)),
    };
    const app = createApp({ logger: { error: () => {}, warn: () => {} } });
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store, leaseMs: 60_000, now: () => clock.t })],
      handler: async (ctx) => {
        const { rows } = await ctx.var.idempotencyTransaction!.query<{ id: number }>(
          `INSERT INTO ${prefix}_orders (key) VALUES ($1) RETURNING id`,
          ['tx-plain'],
        );
        return created(`/orders/${rows[0]!.id}`, { data: { type: 'orders', id: String(rows[0]!.id) } });
      },
    });
    expect((await app.handle(post('tx-plain'))).status).toBe(201);
    expect(await count('tx-plain')).toBe(1);
    const [claim, begin] = calls;
    expect(calls.map(([name]) => name)).toEqual(['claim', 'begin']);
    expect(claim!.slice(2)).toEqual([
      expect.any(String),
      60_000,
      expect.any(String),
      { withTransaction: true },
    ]);
    // The record was completed in the claim's transaction: claimed again, it replays.
    const again = await inner.claim(claim![1] as string, claim![2] as string, 1);
    expect(again.kind).toBe('completed');
    expect(begin).toEqual(['begin', expect.any(String)]);
    // Strings, numbers and one plain options object: nothing of the request reaches the store.
    for (const [, ...args] of calls)
      for (const arg of args)
        expect(
          typeof arg === 'string' ||
            typeof arg === 'number' ||
            Object.getPrototypeOf(arg) === Object.prototype,
        ).toBe(true);
  });

  it('commits the order and the record together, and replays', async () => {
    const app = transactionalApp();
    const first = await app.handle(post('tx-commit'));
    const retry = await app.handle(post('tx-commit'));
    expect(first.status).toBe(201);
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect((await bodyOf(retry)).equals(await bodyOf(first))).toBe(true);
    expect(await count('tx-commit')).toBe(1);
  });

  it('rolls the order back with the claim when the handler fails, so the retry creates exactly one', async () => {
    let fail = true;
    const app = transactionalApp(() => {
      if (fail) throw new Error('payment service down');
    });
    expect((await app.handle(post('tx-fail'))).status).toBe(500);
    expect(await count('tx-fail')).toBe(0);
    fail = false;
    expect((await app.handle(post('tx-fail'))).status).toBe(201);
    expect(await count('tx-fail')).toBe(1);
  });

  it('holds the key while the first request’s transaction is open, past its lease, then replays', async () => {
    const hold = gate();
    let calls = 0;
    const app = transactionalApp(() => (++calls === 1 ? hold.promise : undefined));
    const first = app.handle(post('tx-held'));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.t += 60_000;
    // The record is not committed yet: the retry cannot see it, but cannot take the key over either.
    expect((await app.handle(post('tx-held'))).status).toBe(409);
    hold.open();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await app.handle(post('tx-held'));
    expect(replay.headers[REPLAYED_HEADER]).toBe('true');
    expect((await bodyOf(replay)).equals(await bodyOf(done))).toBe(true);
    expect(calls).toBe(1);
    expect(await count('tx-held')).toBe(1);
  });

  it('answers 409 to another request under the key while the first runs, and 422 once it committed', async () => {
    const hold = gate();
    let calls = 0;
    const app = transactionalApp(() => (++calls === 1 ? hold.promise : undefined));
    const other = (key: string) =>
      requestView('POST', '/orders', {
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: '{"bookId":8,"quantity":2}',
      });
    const first = app.handle(post('tx-reused'));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await app.handle(other('tx-reused'))).status).toBe(409);
    hold.open();
    expect((await first).status).toBe(201);
    expect((await app.handle(other('tx-reused'))).status).toBe(422);
    expect(await count('tx-reused')).toBe(1);
  });

  it('rolls back a claim that came back after the store timeout, so the retry runs and no connection leaks', async () => {
    const table = `${prefix}_records`;
    const store = postgresIdempotencyStore({ pool, table, transactional: true, now: () => clock.t });
    const app = createApp({ logger: { error: () => {}, warn: () => {} } });
    let runs = 0;
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store, storeTimeoutMs: 100, now: () => clock.t })],
      handler: async (ctx) => {
        runs++;
        const db = ctx.var.idempotencyTransaction!;
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO ${prefix}_orders (key) VALUES ($1) RETURNING id`,
          ['tx-late'],
        );
        return created(`/orders/${rows[0]!.id}`, { data: { type: 'orders', id: String(rows[0]!.id) } });
      },
    });
    // Another session holds a lock that the claim's insert waits for, past the middleware's bound.
    const locker = await pool.connect();
    await locker.query(`BEGIN; LOCK TABLE ${table} IN EXCLUSIVE MODE`);
    expect((await app.handle(post('tx-late'))).status).toBe(503);
    await locker.query('ROLLBACK');
    locker.release();
    // The late claim lands, and is rolled back with its transaction.
    for (let i = 0; i < 100 && pool.totalCount - pool.idleCount > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect((await app.handle(post('tx-late'))).status).toBe(201);
    expect(runs).toBe(1);
    expect(await count('tx-late')).toBe(1);
  });

  it('ends the transaction of a claim that no begin took (a wrapper without begin): nothing held, replays', async () => {
    const inner = postgresIdempotencyStore({
      pool,
      table: `${prefix}_records`,
      transactional: true,
      now: () => clock.t,
    });
    // Claims with the transaction, as a wrapper that forwards to a transactional store might, but has
    // no begin: the claim's transaction is left for complete or release.
    const wrapper: IdempotencyStore = {
      claim: (key, fingerprint, leaseMs, owner) =>
        inner.claim(key, fingerprint, leaseMs, owner, { withTransaction: true }),
      renew: (...args) => inner.renew(...args),
      complete: (...args) => inner.complete(...args),
      release: (...args) => inner.release(...args),
    };
    let fail = true;
    const app = createApp({ logger: { error: () => {}, warn: () => {} } });
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store: wrapper, now: () => clock.t })],
      handler: async () => {
        if (fail) throw new Error('payment service down');
        const { rows } = await pool.query<{ id: number }>(
          `INSERT INTO ${prefix}_orders (key) VALUES ($1) RETURNING id`,
          ['tx-wrapped'],
        );
        return created(`/orders/${rows[0]!.id}`, { data: { type: 'orders', id: String(rows[0]!.id) } });
      },
    });
    const busy = () => pool.totalCount - pool.idleCount;
    expect((await app.handle(post('tx-wrapped'))).status).toBe(500);
    expect(busy()).toBe(0);
    fail = false;
    const first = await app.handle(post('tx-wrapped'));
    expect(first.status).toBe(201);
    expect(busy()).toBe(0);
    const retry = await app.handle(post('tx-wrapped'));
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(await count('tx-wrapped')).toBe(1);
  });

  it('rolls back the order of a claim released while its handler ran (shutdown), so the retry runs', async () => {
    const claims = heldClaims(
      postgresIdempotencyStore({ pool, table: `${prefix}_records`, transactional: true }),
    );
    const hold = gate();
    let calls = 0;
    const app = createApp({ logger: { error: () => {}, warn: () => {} } });
    app.route({
      method: 'POST',
      path: '/orders',
      use: [idempotency({ store: claims.store })],
      handler: async (ctx) => {
        const db = ctx.var.idempotencyTransaction!;
        await db.query(`INSERT INTO ${prefix}_orders (key) VALUES ($1)`, ['tx-released']);
        if (++calls === 1) await hold.promise;
        return created('/orders/1', { data: { type: 'orders', id: '1' } });
      },
    });
    const first = app.handle(post('tx-released'));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await claims.releaseAll()).toBe(1);
    hold.open();
    expect((await first).status).toBe(409);
    expect(await count('tx-released')).toBe(0);
    expect((await app.handle(post('tx-released'))).status).toBe(201);
    expect(await count('tx-released')).toBe(1);
  });

  it('rolls the order back when the completion finds no record (the handler deleted it), so the retry runs', async () => {
    let calls = 0;
    const app = transactionalApp(async (ctx) => {
      const db = ctx.var.idempotencyTransaction!;
      if (++calls === 1)
        await db.query(`DELETE FROM ${prefix}_records WHERE position('tx-vanished' in scope_key) > 0`);
    });
    expect((await app.handle(post('tx-vanished'))).status).toBe(409);
    expect(await count('tx-vanished')).toBe(0);
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect((await app.handle(post('tx-vanished'))).status).toBe(201);
    expect(await count('tx-vanished')).toBe(1);
  });

  it(`sends BEGIN with the claim and COMMIT with the completion only on a pipelining client (here: ${pipeline})`, async () => {
    // Each query of the request's connection, with how many of its queries were still unanswered
    // when it was sent.
    const sent: { text: string; waiting: number }[] = [];
    let waiting = 0;
    const watched = poolWatching((text, query) => {
      sent.push({ text, waiting });
      waiting++;
      const answered = query();
      answered.then(
        () => waiting--,
        () => waiting--,
      );
      return answered;
    });
    const app = transactionalApp(undefined, watched);
    expect((await app.handle(post('tx-pipelined'))).status).toBe(201);
    expect(sent.map((q) => q.text.trim().split(/\s+/)[0])).toEqual([
      'BEGIN',
      'WITH',
      'INSERT',
      // The owner's completion lock (SELECT), then the completion, which reads the owner's usage
      // first (WITH) to keep the response whole or brief.
      'SELECT',
      'WITH',
      'COMMIT',
    ]);
    // Sent while another of the connection's queries was unanswered: the claim after BEGIN, the
    // completion after the lock, COMMIT after the completion; nothing else.
    const early = pipeline ? [1, 4, 5] : [];
    expect(sent.flatMap((q, i) => (q.waiting > 0 ? [i] : []))).toEqual(early);
    expect(await count('tx-pipelined')).toBe(1);
  });

  it('answers 503 when the connection breaks while the handler holds it, and stays up; the retry runs', async () => {
    let calls = 0;
    const app = transactionalApp(async (ctx) => {
      if (++calls > 1) return;
      const db = ctx.var.idempotencyTransaction!;
      const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // The broken connection's error event fires on the held client; the store listens to it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await db.query('SELECT 1');
    });
    const broken = await app.handle(post('tx-broken'));
    expect(broken.status).toBeGreaterThanOrEqual(500);
    expect(await count('tx-broken')).toBe(0);
    expect((await app.handle(post('tx-broken'))).status).toBe(201);
    expect(await count('tx-broken')).toBe(1);
  });

  it.runIf(pipeline)(
    'completes the record outside when the client refused the completion but sent the COMMIT',
    async () => {
      // node-postgres can refuse a query before sending it; the COMMIT written behind it then lands.
      const refusing = poolWatching((text, query) =>
        text.startsWith('WITH done') ? Promise.reject(new Error('refused by the client')) : query(),
      );
      const app = transactionalApp(undefined, refusing);
      expect((await app.handle(post('tx-refused'))).status).toBe(201);
      const retry = await app.handle(post('tx-refused'));
      expect(retry.headers[REPLAYED_HEADER]).toBe('true');
      expect(await count('tx-refused')).toBe(1);
    },
  );

  /** The pool, with every query of its checked-out clients passed through `each` (its text, and the real call). */
  function poolWatching(each: (text: string, query: () => Promise<unknown>) => Promise<unknown>): pg.Pool {
    const connect = pool.connect.bind(pool);
    const watched = Object.create(pool) as pg.Pool;
    // pool.query checks out a client of its own, unwatched.
    watched.query = pool.query.bind(pool) as typeof pool.query;
    watched.connect = (async () => {
      const client = await connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      return Object.assign(Object.create(client), {
        query: (...args: unknown[]) => {
          const config = args[0] as string | { text: string };
          return each(typeof config === 'string' ? config : config.text, () => query(...args));
        },
      });
    }) as typeof pool.connect;
    return watched;
  }

  it('creates one order for 50 concurrent identical requests', async () => {
    const hold = gate();
    const app = transactionalApp(() => hold.promise);
    const pending = Array.from({ length: 50 }, () => app.handle(post('tx-burst')));
    setTimeout(hold.open, 100);
    const responses = await Promise.all(pending);
    expect(
      responses.filter((r) => r.status === 201 && r.headers[REPLAYED_HEADER] === undefined),
    ).toHaveLength(1);
    for (const response of responses) {
      expect(response.status === 409 || response.status === 201).toBe(true);
    }
    expect(await count('tx-burst')).toBe(1);
  });
  it("keeps an owner's budget when two of its transactions complete before either commits", async () => {
    const table = `${prefix}_budget`;
    const store = postgresIdempotencyStore({
      pool,
      table,
      transactional: true,
      now: () => clock.t,
      ownerMaxEntries: 3,
      ownerMaxBytes: 5_000,
    });
    await store.migrate();
    const answer = (fill: string) => ({
      status: 201,
      headers: {},
      body: new Uint8Array(3_000).fill(fill.charCodeAt(0)),
    });
    const claimed = async (key: string) => {
      const outcome = await store.claim(key, 'fp', 60_000, 'tess', { withTransaction: true });
      if (outcome.kind !== 'claimed') throw new Error(`${key}: ${outcome.kind}`);
      return {
        token: outcome.token,
        tx: await (store.begin as NonNullable<typeof store.begin>)(outcome.token),
      };
    };
    const first = await claimed('t1');
    const second = await claimed('t2');
    expect(await first.tx.complete('t1', first.token, answer('x'), 60_000)).toBe(true);
    // The second completion waits for the first transaction's end, and then sees its whole answer:
    // room for one 3 000-byte answer beside the claim still to come, so the second is kept brief.
    const secondDone = second.tx.complete('t2', second.token, answer('y'), 60_000);
    await first.tx.commit();
    expect(await secondDone).toBe(true);
    await second.tx.commit();
    // Before: each completion saw only its own answer, both were kept whole, and this was refused.
    expect((await store.claim('t3', 'fp', 60_000, 'tess')).kind).toBe('claimed');
    const { rows } = await pool.query(
      `SELECT scope_key, length(body) AS kept FROM ${table} WHERE state = 'completed' ORDER BY scope_key`,
    );
    expect(rows).toEqual([
      { scope_key: 't1', kept: 3_000 },
      { scope_key: 't2', kept: 0 },
    ]);
    await pool.query(`DROP TABLE ${table}`);
  });
});
