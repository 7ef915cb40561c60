import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/core/app.js';
import { created } from '../../src/core/response.js';
import type { Context } from '../../src/core/types.js';
import {
  IDEMPOTENCY_TRANSACTION,
  idempotency,
  postgresStore,
  type Queryable,
  REPLAYED_HEADER,
} from '../../src/idempotency/index.js';
import { requestView } from '../support/request.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { bodyOf, gate } from './order-app.js';

const available = await serviceAvailable('PostgreSQL');
const prefix = uniquePrefix('idem_tx').toLowerCase();
const ORDER = '{"bookId":7,"quantity":1}';

describe.skipIf(!available)('when the PostgreSQL store shares the handler’s transaction', () => {
  let pool: pg.Pool;
  const clock = { t: 1_700_000_000_000 };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 20 });
    await postgresStore({ pool, table: `${prefix}_records` }).migrate();
    await pool.query(`CREATE TABLE ${prefix}_orders (id serial PRIMARY KEY, key text)`);
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${prefix}_records, ${prefix}_orders`);
    await pool.end();
  });

  const count = async (key: string) =>
    Number((await pool.query(`SELECT count(*) AS n FROM ${prefix}_orders WHERE key = $1`, [key])).rows[0].n);

  /** An order app whose handler writes through the transaction the store opened. */
  function transactionalApp(afterInsert: (ctx: Context) => Promise<void> | void = () => {}) {
    const store = postgresStore({
      pool,
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
        const db: Queryable = ctx.get(IDEMPOTENCY_TRANSACTION) ?? pool;
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

  it('rolls back a stale owner’s order when a retry took its lease over', async () => {
    const hold = gate();
    let calls = 0;
    const app = transactionalApp(() => (++calls === 1 ? hold.promise : undefined));
    const stale = app.handle(post('tx-stale'));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.t += 60_000;
    const takeover = await app.handle(post('tx-stale'));
    expect(takeover.status).toBe(201);
    hold.open();
    const late = await stale;
    expect(late.status).toBe(409);
    expect(await count('tx-stale')).toBe(1);
    const replay = await app.handle(post('tx-stale'));
    expect((await bodyOf(replay)).equals(await bodyOf(takeover))).toBe(true);
  });

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
});
