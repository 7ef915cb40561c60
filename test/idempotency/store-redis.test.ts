import fc from 'fast-check';
import { Redis } from 'ioredis';
import { createCluster } from 'redis';
import { createCluster as createCluster4 } from 'redis-v4';
import { createCluster as createCluster5 } from 'redis-v5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdempotencyStore, redisIdempotencyStore } from '../../src/idempotency/index.js';
import { type ConnectedClient, REDIS_CLIENTS, type RedisClientName } from '../support/redis-clients.js';
import { monitored } from '../support/redis-monitor.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { describeStoreContract } from './store-contract.js';

const available = await serviceAvailable('Redis');
let limited = 0;

// The contract, once per client the store takes: each library and set-up reads and writes alike.
for (const [name, connect] of Object.entries(REDIS_CLIENTS)) {
  let connected: ConnectedClient | undefined;
  const prefix = `${uniquePrefix('idem')}:`;
  describeStoreContract(
    `Redis (${name})`,
    {
      before: async () => {
        connected = await connect();
      },
      make: (now) => redisIdempotencyStore({ client: connected!.client, prefix, now }),
      // Per-owner budgets only: the store has none store-wide (docs/idempotency.md, "Budgets").
      makeLimited: async (now, { ownerMaxEntries, ownerMaxBytes }) =>
        redisIdempotencyStore({
          client: connected!.client,
          prefix: `${prefix}limited-${++limited}:`,
          now,
          ownerMaxEntries,
          ownerMaxBytes,
        }),
      totalBudgets: false,
      after: async () => {
        await connected?.close();
        await deleteKeysUnder(prefix);
      },
    },
    available,
  );
}

/** Deletes the keys under `prefix` that the tests left. */
async function deleteKeysUnder(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

describe('the Redis store, when configured', () => {
  it('rejects something that is not an ioredis or node-redis client at start-up', () => {
    expect(() => redisIdempotencyStore({ client: {} as Redis })).toThrow(/ioredis or node-redis/);
  });

  it('refuses replicas with a client that cannot send a pipeline, naming what it needs', () => {
    const scriptsOnly = { evalSha: async () => 1, eval: async () => 1 };
    expect(() => redisIdempotencyStore({ client: scriptsOnly, replicas: 1 })).toThrow(
      /replicas needs .*multi\(\)/,
    );
    expect(() => redisIdempotencyStore({ client: scriptsOnly })).not.toThrow();
  });

  it("refuses replicas with node-redis 4's cluster client, whose pipelines cannot send WAIT, and takes node-redis 5's and 6's", () => {
    // Built, never connected: the check reads what a pipeline can send.
    const rootNodes = [{ url: 'redis://127.0.0.1:1' }];
    expect(() => redisIdempotencyStore({ client: createCluster4({ rootNodes }), replicas: 1 })).toThrow(
      /node-redis 4's createCluster\(\) cannot/,
    );
    expect(() => redisIdempotencyStore({ client: createCluster4({ rootNodes }) })).not.toThrow();
    for (const client of [createCluster5({ rootNodes }), createCluster({ rootNodes })])
      expect(() => redisIdempotencyStore({ client, replicas: 1 })).not.toThrow();
  });

  it('rejects a prefix with a hash tag, store-wide budgets and bad durability options, naming them', () => {
    const client = new Redis({ lazyConnect: true });
    const make = (options: Record<string, unknown>) => () => redisIdempotencyStore({ client, ...options });
    expect(make({ prefix: '{idempotency}:' })).toThrow(/prefix/);
    expect(make({ maxEntries: 10 })).toThrow(/maxEntries/);
    expect(make({ maxBytes: 10 })).toThrow(/maxBytes/);
    expect(make({ replicas: -1 })).toThrow(/replicas/);
    expect(make({ replicationTimeoutMs: 0 })).toThrow(/replicationTimeoutMs/);
    expect(make({ replicaMaxLagSeconds: 0 })).toThrow(/replicaMaxLagSeconds/);
    expect(make({ replicaMaxLagSeconds: 2.5 })).toThrow(/replicaMaxLagSeconds/);
    client.disconnect();
  });
});

/**
 * An owner's hash must always describe its records (docs/idempotency.md, "Budgets"): `n` their
 * number, `b` the sum of their bytes, `e` at or before the earliest of their expiries, and nothing
 * at all once it holds none. Otherwise budgets drift: claims refused for room that is free, or
 * granted past a quota.
 */
async function expectConsistentUsage(redis: Redis, storePrefix: string, owner: string): Promise<void> {
  const hash = await redis.hgetall(`${storePrefix}{${owner}}`);
  let b = 0;
  const expiries: number[] = [];
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith(':')) continue;
    // A record starts '<expiry>,<bytes>,'.
    const [expiry, bytes] = value.split(',').map(Number) as [number, number];
    expiries.push(expiry);
    b += bytes;
  }
  if (expiries.length === 0) expect(hash).toEqual({});
  else {
    expect(Number(hash.n)).toBe(expiries.length);
    expect(Number(hash.b)).toBe(b);
    expect(Number(hash.e)).toBeLessThanOrEqual(Math.min(...expiries));
  }
}

/** A client for one block of tests, connected before them; their keys under `base` go after them. */
function redisUnder(base: string): Redis {
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${base}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return redis;
}

describe.skipIf(!available)('the Redis store, by owner', () => {
  const base = `${uniquePrefix('idem-owners')}:`;
  const redis = redisUnder(base);

  it("lets no group of owners, however full their quotas, make another owner's claim fail", async () => {
    const store = redisIdempotencyStore({ client: redis, prefix: `${base}group:`, ownerMaxEntries: 3 });
    for (let owner = 0; owner < 200; owner++) {
      const outcomes = await Promise.all(
        [0, 1, 2, 3].map((k) => store.claim(`k${k}`, 'fp', 60_000, `sub:member-${owner}`)),
      );
      expect(outcomes.filter((o) => o.kind === 'full')).toHaveLength(1);
    }
    expect((await store.claim('k0', 'fp', 60_000, 'sub:someone-else')).kind).toBe('claimed');
  });

  it("gives the owner's keys a TTL that outlives each of its records, so nothing stays behind", async () => {
    const prefix = `${base}ttl:`;
    const store = redisIdempotencyStore({ client: redis, prefix });
    const claimed = await store.claim('short', 'fp', 1_000, 'sub:t');
    if (claimed.kind !== 'claimed') throw new Error('not claimed');
    await store.complete(
      'short',
      claimed.token,
      { status: 201, headers: {}, body: new Uint8Array(3) },
      600_000,
    );
    expect((await store.claim('long', 'fp', 5_000, 'sub:t')).kind).toBe('claimed');
    // The completed record is kept 600 s, and 60 s more before Redis drops it.
    expect(await redis.pttl(`${prefix}{sub:t}`)).toBeGreaterThanOrEqual(660_000 - 5_000);
  });

  const clientNames = Object.keys(REDIS_CLIENTS) as RedisClientName[];

  it.each(clientNames)(
    'sends Redis one script and three commands per first claim and per completion (%s)',
    async (name) => {
      const prefix = `${base}commands-${name.replace(/\W+/g, '-')}:`;
      const connected = await REDIS_CLIENTS[name]();
      const { seen, settle, stop } = await monitored(redis, prefix);
      try {
        const store = redisIdempotencyStore({ client: connected.client, prefix });
        const counts: Record<string, number>[] = [];
        const take = () => {
          const count: Record<string, number> = {};
          for (const { args } of seen.splice(0)) {
            const command = args[0]!.toLowerCase();
            count[command] = (count[command] ?? 0) + 1;
          }
          counts.push(count);
        };
        const claimed = await store.claim('k', 'fp', 60_000, 'sub:c');
        if (claimed.kind !== 'claimed') throw new Error('not claimed');
        await settle();
        take();
        const response = { status: 201, headers: { etag: '"1"' }, body: new Uint8Array(5) };
        expect(await store.complete('k', claimed.token, response, 60_000)).toBe(true);
        await settle();
        take();
        // The first time, the owner's hash gets its TTL (PEXPIRE); EVAL when this Redis had not cached the script.
        for (const count of counts) {
          const { evalsha = 0, eval: evaluated = 0, pexpire = 0, ...commands } = count;
          expect(evalsha + evaluated).toBeGreaterThanOrEqual(1);
          expect(pexpire).toBeLessThanOrEqual(1);
          expect(Object.values(commands).reduce((a, b) => a + b, 0)).toBe(3);
        }
      } finally {
        stop();
        await connected.close();
      }
    },
  );
});

describe.skipIf(!available)('the Redis store, driven by any sequence of operations', () => {
  const base = `${uniquePrefix('idem-accounting')}:`;
  const redis = redisUnder(base);

  type Step =
    | { op: 'claim'; key: number; owner: number; lease: number }
    | { op: 'complete'; key: number; bytes: number; retention: number }
    | { op: 'renew' | 'release'; key: number }
    | { op: 'advance'; ms: number };
  const key = fc.integer({ min: 0, max: 5 });
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      op: fc.constant('claim' as const),
      key,
      owner: fc.integer({ min: 0, max: 2 }),
      lease: fc.constantFrom(10, 50),
    }),
    fc.record({
      op: fc.constant('complete' as const),
      key,
      bytes: fc.constantFrom(0, 10, 300),
      retention: fc.constantFrom(10, 100),
    }),
    fc.record({ op: fc.constantFrom('renew' as const, 'release' as const), key }),
    fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(5, 10, 60) }),
  );

  it('keeps its counts equal to its records, through expiry, refusals, reclaiming and release', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const storePrefix = `${base}${++run}:`;
        const clock = { t: 1_700_000_000_000 };
        // Small budgets, so claims are refused and the counts taken back, and expired records
        // are reclaimed to make room.
        const store: IdempotencyStore = redisIdempotencyStore({
          client: redis,
          prefix: storePrefix,
          now: () => clock.t,
          ownerMaxEntries: 2,
          ownerMaxBytes: 600,
        });
        const tokens = new Map<number, string>();
        for (const s of steps) {
          if (s.op === 'advance') {
            clock.t += s.ms;
          } else if (s.op === 'claim') {
            const outcome = await store.claim(`k${s.key}`, 'fp', s.lease, `owner-${s.owner}`);
            if (outcome.kind === 'claimed') tokens.set(s.key, outcome.token);
          } else {
            const token = tokens.get(s.key) ?? 'never-issued';
            if (s.op === 'complete') {
              const body = new Uint8Array(s.bytes);
              await store.complete(`k${s.key}`, token, { status: 201, headers: {}, body }, s.retention);
            } else if (s.op === 'renew') {
              await store.renew(`k${s.key}`, token, 50);
            } else {
              await store.release(`k${s.key}`, token);
            }
          }
          for (const owner of [0, 1, 2]) await expectConsistentUsage(redis, storePrefix, `owner-${owner}`);
        }
      }),
      { numRuns: 40 },
    );
  });
});
