import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGracefully, createNodeServer } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import type { Middleware } from '../../src/http/types.js';
import {
  heldClaims,
  type IdempotencyStore,
  idempotency,
  memoryIdempotencyStore,
  postgresIdempotencyStore,
  redisIdempotencyStore,
} from '../../src/idempotency/index.js';
import { memoryLogger } from '../support/reference-app.js';
import { DATABASE_URL, REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

/**
 * Shutdown with a request still running at the bound: the claim of the cut request is released, so
 * the client's retry (to the next instance, over the same store) runs at once instead of getting
 * 409 until the lease (here 60 s) runs out.
 */
const redisUp = await serviceAvailable('Redis');
const postgresUp = await serviceAvailable('PostgreSQL');
const LEASE_MS = 60_000;

let redis: Redis | undefined;
let pool: pg.Pool | undefined;
const table = `${uniquePrefix('claims').toLowerCase()}_idempotency`;
beforeAll(async () => {
  if (redisUp) redis = new Redis(REDIS_URL);
  if (postgresUp) pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
});
afterAll(async () => {
  await redis?.quit();
  await pool?.query(`DROP TABLE IF EXISTS ${table}`);
  await pool?.end();
});

/**
 * An instance whose POST /orders waits on `gate` (or answers at once without one), over `store`.
 * `settled` waits until each request it took has left the idempotency layer: a cut request's handler
 * still runs, and its claim is renewed, until its gate opens. Its log is kept in memory: test files
 * share a process, so anything written to stderr lands in whichever test runs then.
 */
async function instance(store: IdempotencyStore, gate?: Promise<void>) {
  let runs = 0;
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const pipelines: Array<Promise<unknown>> = [];
  const tracked: Middleware = (_ctx, next) => {
    const pipeline = next();
    pipelines.push(pipeline.catch(() => undefined));
    return pipeline;
  };
  const logger = memoryLogger();
  const app = createApp({ logger });
  app.route({
    method: 'POST',
    path: '/orders',
    use: [tracked, idempotency({ store, leaseMs: LEASE_MS })],
    handler: async () => {
      runs++;
      entered();
      if (gate !== undefined) await gate;
      return { status: 201, headers: { location: `/orders/${runs}` }, raw: 'created' };
    },
  });
  const server = createNodeServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, inside, logger, runs: () => runs, settled: () => Promise.all(pipelines) };
}

function post(port: number, key: string): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/orders',
        headers: { 'idempotency-key': `"${key}"` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode! }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

const stores: Array<[string, boolean, () => Promise<IdempotencyStore>]> = [
  ['memory', true, async () => memoryIdempotencyStore()],
  [
    'Redis',
    redisUp,
    async () => redisIdempotencyStore({ client: redis!, prefix: `${uniquePrefix('claims')}:` }),
  ],
  [
    'PostgreSQL',
    postgresUp,
    async () => {
      const store = postgresIdempotencyStore({ pool: pool!, table });
      await store.migrate();
      return store;
    },
  ],
];

describe.each(stores)('releasing held claims at shutdown, %s store', (_, available, makeStore) => {
  it.skipIf(!available)('a retry after the cut runs at once; without the release it gets 409', async () => {
    const store = await makeStore();
    // Held shut while the servers are cut; opened at the end, so no handler outlives the test and
    // renews its claim on a store this file has closed.
    let open!: () => void;
    const never = new Promise<void>((resolve) => {
      open = resolve;
    });

    // Without releasing: the retry meets the claim of the cut request.
    const kept = heldClaims(store);
    const first = await instance(kept.store, never);
    const cutWithoutRelease = post(first.port, 'kept');
    await first.inside;
    expect(await closeGracefully(first.server, { timeoutMs: 20 })).toBe('timed-out');
    expect(await cutWithoutRelease).toHaveProperty('error');
    const next = await instance(store);
    expect(await post(next.port, 'kept')).toEqual({ status: 409 });

    // Releasing: the same story, then releaseAll before the process would exit.
    const claims = heldClaims(store);
    const second = await instance(claims.store, never);
    const cut = post(second.port, 'released');
    await second.inside;
    expect(claims.size).toBe(1);
    expect(await closeGracefully(second.server, { timeoutMs: 20 })).toBe('timed-out');
    expect(await cut).toHaveProperty('error');
    expect(await claims.releaseAll()).toBe(1);
    expect(claims.size).toBe(0);
    expect(await post(next.port, 'released')).toEqual({ status: 201 });
    expect(next.runs()).toBe(1);
    // The retry's result is the one kept: a second retry replays it.
    expect(await post(next.port, 'released')).toEqual({ status: 201 });
    expect(next.runs()).toBe(1);
    await closeGracefully(next.server, { timeoutMs: 1000 });

    open();
    await Promise.all([first.settled(), second.settled()]);
    // The released claim was taken by the retry: the cut handler's late result is not stored.
    expect(first.logger.entries).toEqual([]);
    expect(second.logger.entries.map((entry) => entry.message)).toEqual([
      expect.stringMatching(/^idempotency: response not stored/),
    ]);
  });
});

describe('heldClaims', () => {
  it('forgets claims that completed or were released, so releaseAll touches only live ones', async () => {
    const claims = heldClaims(memoryIdempotencyStore());
    const { store } = claims;
    const a = await store.claim('a', 'f', LEASE_MS);
    const b = await store.claim('b', 'f', LEASE_MS);
    await store.claim('c', 'f', LEASE_MS);
    if (a.kind !== 'claimed' || b.kind !== 'claimed') throw new Error('expected claims');
    await store.complete('a', a.token, { status: 201, headers: {}, body: new Uint8Array() }, LEASE_MS);
    await store.release('b', b.token);
    expect(claims.size).toBe(1);
    expect(await claims.releaseAll()).toBe(1);
    expect((await store.claim('c', 'f', LEASE_MS)).kind).toBe('claimed');
    expect((await store.claim('a', 'f', LEASE_MS)).kind).toBe('completed');
  });

  it('passes each claim’s owner on, so every owner keeps a quota of its own', async () => {
    const { store } = heldClaims(memoryIdempotencyStore({ ownerMaxEntries: 1 }));
    expect((await store.claim('a', 'f', LEASE_MS, 'sub:1')).kind).toBe('claimed');
    expect((await store.claim('b', 'f', LEASE_MS, 'sub:2')).kind).toBe('claimed');
    expect(await store.claim('c', 'f', LEASE_MS, 'sub:1')).toMatchObject({ kind: 'full', scope: 'owner' });
  });

  it.each([
    ['no store', undefined, {}],
    ['a bad timeout', memoryIdempotencyStore(), { timeoutMs: 0 }],
  ])('refuses %s at start-up with a TypeError', (_, store, options) => {
    expect(() => heldClaims(store as unknown as IdempotencyStore, options)).toThrow(TypeError);
  });
});
