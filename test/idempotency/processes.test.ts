import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresIdempotencyStore } from '../../src/idempotency/index.js';
import { DATABASE_URL, REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import {
  expectOneExecution,
  type FixtureServer,
  type RawResponse,
  send,
  startFixture,
} from './http-client.js';

const ORDER = JSON.stringify({ bookId: 7, quantity: 1 });
// Renewed every third of it while the handler runs: 600 ms was lost on a loaded machine, whose
// processes can go unscheduled that long, and the burst's owner then lost its claim mid-run.
const LEASE_MS = 3_000;

interface Backend {
  readonly name: 'Redis' | 'PostgreSQL';
  readonly env: Record<string, string>;
  setUp(): Promise<void>;
  orderCount(): Promise<number>;
  tearDown(): Promise<void>;
}

function redisBackend(): Backend {
  const prefix = uniquePrefix('idem_proc');
  const client = new Redis(REDIS_URL, { lazyConnect: true });
  return {
    name: 'Redis',
    env: { STORE: 'redis', REDIS_URL, PREFIX: prefix },
    setUp: () => client.connect(),
    orderCount: async () => Number((await client.get(`${prefix}:orders`)) ?? 0),
    tearDown: async () => {
      const keys = await client.keys(`${prefix}:*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    },
  };
}

function postgresBackend(): Backend {
  const prefix = uniquePrefix('idem_proc').toLowerCase();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  return {
    name: 'PostgreSQL',
    env: { STORE: 'postgres', DATABASE_URL, PREFIX: prefix },
    setUp: async () => {
      await postgresIdempotencyStore({ pool, table: `${prefix}_records` }).migrate();
      await pool.query(`CREATE TABLE ${prefix}_orders (id serial PRIMARY KEY)`);
    },
    orderCount: async () =>
      Number((await pool.query(`SELECT count(*) AS n FROM ${prefix}_orders`)).rows[0].n),
    tearDown: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${prefix}_records, ${prefix}_orders`);
      await pool.end();
    },
  };
}

const backends: [Backend, boolean][] = [
  [redisBackend(), await serviceAvailable('Redis')],
  [postgresBackend(), await serviceAvailable('PostgreSQL')],
];

for (const [backend, available] of backends) {
  describe.skipIf(!available)(`when two app processes share a ${backend.name} store`, () => {
    const servers: FixtureServer[] = [];

    beforeAll(async () => {
      await backend.setUp();
      const env = { ...backend.env, LEASE_MS: String(LEASE_MS), DELAY_MS: '150' };
      // Keep each server as soon as it is up, so one that started is killed even if the other failed.
      const starting = [startFixture(env), startFixture(env)].map((start) =>
        start.then((server) => {
          servers.push(server);
          return server;
        }),
      );
      const started = await Promise.allSettled(starting);
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.kill()));
      await backend.tearDown();
    });

    it('creates exactly one order for 50 concurrent identical requests spread over both', async () => {
      const key = { 'idempotency-key': `"burst-${backend.name}"` };
      const before = await backend.orderCount();
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send(servers[i % 2]!.port, key, ORDER)),
      );
      expect(await backend.orderCount()).toBe(before + 1);
      const original = expectOneExecution(responses);
      const later = await send(servers[1]!.port, key, ORDER);
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(later.body.equals(original.body)).toBe(true);
      expect(await backend.orderCount()).toBe(before + 1);
    });

    it('lets a retry on the other process succeed once the crashed owner’s lease ran out, with one order', async () => {
      const [doomed, survivor] = servers as [FixtureServer, FixtureServer];
      const key = { 'idempotency-key': `crash-${backend.name}` };
      const before = await backend.orderCount();
      const abandoned = send(doomed.port, { ...key, 'x-hang': '1' }, ORDER).catch(() => undefined);
      await doomed.waitFor((line) => line.hanging === true);
      await doomed.kill();
      await abandoned;

      let response: RawResponse | undefined;
      for (let attempt = 0; attempt < 100; attempt++) {
        response = await send(survivor.port, key, ORDER);
        if (response.status !== 409) break;
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 4));
      }
      expect(response!.status).toBe(201);
      expect(response!.headers['idempotent-replayed']).toBeUndefined();
      expect(await backend.orderCount()).toBe(before + 1);
      const replay = await send(survivor.port, key, ORDER);
      expect(replay.body.equals(response!.body)).toBe(true);
    });
  });
}
