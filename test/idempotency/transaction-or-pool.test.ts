import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { conditional } from '../../src/caching/conditional.js';
import { versionEtag } from '../../src/caching/index.js';
import { created, json } from '../../src/core/response.js';
import type { Context } from '../../src/http/types.js';
import {
  idempotency,
  postgresIdempotencyStore,
  transactionOrPool,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '../../src/idempotency/index.js';
import { gate } from '../support/gate.js';
import { memoryLogger } from '../support/reference-app.js';
import { requestView } from '../support/request.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');

/**
 * How long a pool waits for a connection before refusing (pg's `connectionTimeoutMillis`): long
 * enough for a new connection's handshake on a busy machine, but for the test of the refusal itself.
 */
const POOL_WAIT_MS = 10_000;
const REFUSING_POOL_WAIT_MS = 300;

/**
 * `transactionOrPool(ctx, pool)`: one connection per keyed write from claim to completion, a 503
 * when the pool has no connection in time, and one owner's share of the pool (docs/idempotency.md,
 * "One connection per keyed write").
 */
describe.runIf(available)('transactionOrPool on PostgreSQL', () => {
  const prefix = uniquePrefix('tx_or_pool').toLowerCase();
  const things = `${prefix}_things`;
  const records = `${prefix}_records`;
  const pools: pg.Pool[] = [];
  const poolOf = (max: number, waitMs = POOL_WAIT_MS) => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max, connectionTimeoutMillis: waitMs });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    const pool = poolOf(1);
    await postgresIdempotencyStore({ pool, table: records }).migrate();
    await pool.query(`CREATE TABLE ${things} (id int PRIMARY KEY, version int NOT NULL)`);
    await pool.query(`INSERT INTO ${things} SELECT g, 1 FROM generate_series(1, 20) g`);
  });
  afterAll(async () => {
    await pools[0]?.query(`DROP TABLE IF EXISTS ${things}, ${records}`);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  /**
   * `PATCH /things/{id}` as the reference app's orders: the thing is loaded by `conditional` for its
   * `If-Match` and written by the handler, both through `transactionOrPool`. `GET /things/{id}`
   * reads it the same way, unkeyed. `held` holds a PATCH's handler until it opens.
   */
  function thingsApp(pool: pg.Pool, held?: { readonly promise: Promise<void>; running: number }) {
    const logger = memoryLogger();
    const store = postgresIdempotencyStore({ pool, table: records, transactional: true });
    const load = async (ctx: Context<{ readonly id: string }>) => {
      const { rows } = await transactionOrPool(ctx, pool).query<{ id: number; version: number }>(
        `SELECT id, version FROM ${things} WHERE id = $1`,
        [Number(ctx.params.id)],
      );
      return rows[0]!;
    };
    const validators = (_ctx: Context, thing: { version: number }) => ({ etag: versionEtag(thing.version) });
    const app = createApp({ logger });
    app.route({
      method: 'PATCH',
      path: '/things/{id}',
      use: [
        idempotency({ store, owner: (ctx) => ctx.request.headers.get('x-owner') ?? 'nobody' }),
        conditional({ load, validators, requireIfMatch: true }),
      ],
      handler: async (ctx) => {
        if (held !== undefined) {
          held.running++;
          await held.promise;
        }
        const { rows } = await transactionOrPool(ctx, pool).query<{ version: number }>(
          `UPDATE ${things} SET version = version + 1 WHERE id = $1 AND version = $2 RETURNING version`,
          [ctx.var.entity.id, ctx.var.entity.version],
        );
        return created(`/things/${ctx.params.id}`, { meta: { version: rows[0]!.version } });
      },
    });
    app.route({
      method: 'GET',
      path: '/things/{id}',
      use: [conditional({ load, validators })],
      handler: (ctx) => json(200, { meta: { version: ctx.var.entity.version } }),
    });
    return { app, logger };
  }
  const etagOf = async (pool: pg.Pool, id: number) =>
    versionEtag((await pool.query(`SELECT version FROM ${things} WHERE id = $1`, [id])).rows[0].version);
  const patch = async (pool: pg.Pool, id: number, key: string, owner = 'alice') =>
    requestView('PATCH', `/things/${id}`, {
      headers: { 'idempotency-key': key, 'if-match': await etagOf(pool, id), 'x-owner': owner },
    });

  it('loads, writes and records a keyed write on the one connection its claim took: a pool of one is enough', async () => {
    const pool = poolOf(1);
    const { app } = thingsApp(pool);
    const request = await patch(pool, 1, `"one-${prefix}"`);
    const first = await app.handle(request);
    expect(first.status).toBe(201);
    const replay = await app.handle(
      requestView('PATCH', '/things/1', {
        headers: { 'idempotency-key': `"one-${prefix}"`, 'if-match': request.headers.get('if-match')! },
      }),
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('reads an unkeyed request through the pool', async () => {
    const { app } = thingsApp(poolOf(1));
    const read = await app.handle(requestView('GET', '/things/2'));
    expect(read.status).toBe(200);
  });

  it('answers 503 database-unavailable with Retry-After when no connection comes free in time, logging no stack', async () => {
    const pool = poolOf(1, REFUSING_POOL_WAIT_MS);
    const { app, logger } = thingsApp(pool);
    const holder = await pool.connect();
    try {
      const refused = await app.handle(requestView('GET', '/things/3'));
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      expect((refused.json as { errors: Array<{ code: string }> }).errors[0]!.code).toBe(
        'database-unavailable',
      );
    } finally {
      holder.release();
    }
    expect(logger.entries.map((e) => e.level)).toEqual(['warn']);
    expect(JSON.stringify(logger.entries)).not.toMatch(/stack|\.ts:\d|timeout exceeded/);
    expect((await app.handle(requestView('GET', '/things/3'))).status).toBe(200);
  });

  it("leaves half the pool to others while one owner's keyed writes hold the other half", async () => {
    const pool = poolOf(4);
    const held = { ...gate(), running: 0 };
    const { app } = thingsApp(pool, held);
    const burst = await Promise.all(
      [4, 5, 6, 7, 8, 9].map((id) => patch(pool, id, `"share-${prefix}-${id}"`)),
    );
    const answers = Promise.all(burst.map((request) => app.handle(request)));
    // Two of alice's six run (half of four connections); the other four wait for their turn.
    await expect.poll(() => held.running, { timeout: 10_000 }).toBe(2);
    const others = await Promise.all([
      app.handle(requestView('GET', '/things/10')),
      app.handle(requestView('GET', '/things/11')),
    ]);
    expect(others.map((r) => r.status)).toEqual([200, 200]);
    expect(held.running).toBe(2);
    held.open();
    expect((await answers).map((r) => r.status)).toEqual(Array(6).fill(201));
  }, 30_000);
});
