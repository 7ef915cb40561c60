import { fc, test } from '@fast-check/vitest';
import keySlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from '../../src/ratelimit/index.js';
import { type ConnectedClient, REDIS_CLIENTS, type RedisClientName } from '../support/redis-clients.js';
import { redisServerInstalled, redisServers } from '../support/redis-servers.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { storeContract } from './store-contract.js';

const available = await serviceAvailable('Redis');

/**
 * A `redis-server` of this file's own, for `SCRIPT FLUSH`: it empties the script cache of the whole
 * server, and on the shared one a store of another test file running meanwhile would reload its
 * script mid-test (a test counting commands through MONITOR would see the reload). Without
 * redis-server installed (allowed outside CI), the shared Redis.
 */
async function ownRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (!redisServerInstalled()) return { url: REDIS_URL, stop: async () => {} };
  const servers = await redisServers('redis-ratelimit');
  const port = await servers.startOnFreePort().catch(async (error: unknown) => {
    await servers.stop();
    throw error;
  });
  return { url: `redis://127.0.0.1:${port}`, stop: servers.stop };
}
const prefix = `${uniquePrefix('ratelimit')}:`;
const client = available ? new Redis(REDIS_URL, { lazyConnect: true }) : undefined;

afterAll(async () => {
  if (client === undefined) return;
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  client.disconnect();
});

describe.skipIf(!available)('with a real Redis', () => {
  // The contract, once per client the store takes: each library and set-up decides alike.
  const connected = new Map<RedisClientName, ConnectedClient>();
  beforeAll(async () => {
    for (const [name, connect] of Object.entries(REDIS_CLIENTS))
      connected.set(name as RedisClientName, await connect());
  });
  afterAll(async () => {
    for (const { close } of connected.values()) await close();
  });
  for (const name of Object.keys(REDIS_CLIENTS) as RedisClientName[]) {
    storeContract(`Redis (${name})`, () => {
      const tag = Math.random().toString(36).slice(2, 8);
      // A fake clock sent with each decision (instead of Redis TIME): time passes without waiting.
      let clock = Date.now();
      return {
        store: redisRateLimitStore({ client: connected.get(name)!.client, prefix, now: () => clock }),
        key: (label) => `${name}-${label}-${tag}`,
        advance: async (ms) => {
          clock += ms;
        },
      };
    });
  }

  it('stores one expiring key per policy under the prefix, sharing a hash tag', async () => {
    const store = redisRateLimitStore({ client: client!, prefix });
    await store.consume('ttl-check', [
      { name: 'burst', quota: 10, windowSeconds: 60 },
      { name: 'day', quota: 100, windowSeconds: 86400 },
    ]);
    const keys = (await client!.keys(`${prefix}{ttl-check}*`)).sort();
    expect(keys).toEqual([`${prefix}{ttl-check}:burst:10:60`, `${prefix}{ttl-check}:day:100:86400`]);
    // The key lives exactly as long as the debt: one request costs window / quota.
    const ttls = await Promise.all(keys.map((k) => client!.pttl(k)));
    expect(ttls[0]).toBeGreaterThan(5_000);
    expect(ttls[0]).toBeLessThanOrEqual(6_001);
    expect(ttls[1]).toBeLessThanOrEqual(864_001);
  });

  it('refuses a prefix holding a hash tag, which would put every client in one slot', () => {
    expect(() => redisRateLimitStore({ client: client!, prefix: '{ratelimit}:' })).toThrow(
      /redisRateLimitStore: prefix must be a string without '\{' or '\}'/,
    );
  });

  // Client keys drawn from text heavy in the characters a hash tag is made of.
  const clientKey = fc.string({
    unit: fc.constantFrom('a', '{', '}', '%', ':', '7', 'B', 'D'),
    maxLength: 8,
  });
  let run = 0;
  test.prop([clientKey], { numRuns: 40 })(
    "keeps a client's keys in one slot, under a hash tag that is the whole client key",
    async (key) => {
      const runPrefix = `${prefix}tag-${++run}:`;
      const store = redisRateLimitStore({ client: client!, prefix: runPrefix });
      await store.consume(key, [
        { name: 'burst', quota: 10, windowSeconds: 60 },
        { name: 'day', quota: 100, windowSeconds: 86400 },
      ]);
      const keys = await client!.keys(`${runPrefix}*`);
      expect(keys).toHaveLength(2);
      // cluster-key-slot implements the slot rule of the Redis Cluster specification on its own.
      expect(keySlot(keys[0]!)).toBe(keySlot(keys[1]!));
      // The tag, between the first '{' and the next '}', read back: the client key, whole.
      const rest = keys[0]!.slice(runPrefix.length);
      expect(rest.startsWith('{')).toBe(true);
      const tag = rest.slice(1, rest.indexOf('}'));
      const decoded = tag.replace(/%(25|7B|7D)/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
      expect(decoded).toBe(key === '' ? '%' : key);
    },
  );

  it('refuses a clock that is not a function, naming the option', () => {
    expect(() => redisRateLimitStore({ client: client!, prefix, now: 5 as never })).toThrow(
      'redisRateLimitStore: "now" must be a function returning milliseconds, got 5',
    );
  });

  let flushable: Awaited<ReturnType<typeof ownRedis>>;
  beforeAll(async () => {
    flushable = await ownRedis();
  });
  afterAll(() => flushable.stop());

  it.each(Object.keys(REDIS_CLIENTS) as RedisClientName[])(
    'reloads the script after SCRIPT FLUSH (%s)',
    async (library) => {
      const { client: libraryClient, close } = await REDIS_CLIENTS[library](flushable.url);
      const flusher = new Redis(flushable.url);
      try {
        const store = redisRateLimitStore({ client: libraryClient, prefix });
        const policy = { name: 'p', quota: 2, windowSeconds: 60 };
        await store.consume(`flushed-${library}`, [policy]);
        const noScripts = async () =>
          Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(await flusher.info('errorstats'))?.[1] ?? 0);
        const before = await noScripts();
        await flusher.script('FLUSH');
        expect((await store.consume(`flushed-${library}`, [policy])).policies[0]!.remaining).toBe(0);
        // It did meet the flushed cache (NOSCRIPT), and sent the script again.
        expect(await noScripts()).toBeGreaterThan(before);
      } finally {
        flusher.disconnect();
        await close();
      }
    },
  );

  it('agrees with the memory store, since both use the same arithmetic', async () => {
    // A window long enough that no request is paid back between two calls, whatever the scheduling.
    const policy = { name: 'odd', quota: 7, windowSeconds: 3000 };
    const redis = redisRateLimitStore({ client: client!, prefix });
    const memory = memoryRateLimitStore({ now: () => 1_700_000_000_000 });
    const run = async (store: RateLimitStore) => {
      const decisions = [];
      for (let i = 0; i < 9; i++) decisions.push(await store.consume('odd', [policy]));
      return decisions.map((d) => [d.allowed, d.policies[0]!.remaining]);
    };
    const fromRedis = await run(redis);
    expect(fromRedis).toEqual(await run(memory));
    expect(fromRedis.filter(([allowed]) => allowed)).toHaveLength(7);
  });
});
