/**
 * The contract every RateLimitStore passes. A store under test comes with `advance(ms)`: the memory
 * store moves its fake clock, the Redis store (which reads Redis TIME) waits for real.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitPolicy, RateLimitStore } from '../../src/ratelimit/index.js';

export interface StoreUnderTest {
  readonly store: RateLimitStore;
  /** Let `ms` of store time pass. */
  advance(ms: number): Promise<void>;
  /** A key unique to this test. */
  key(label: string): string;
}

const hour: RateLimitPolicy = { name: 'hour', quota: 5, windowSeconds: 3600 };

export function storeContract(name: string, setup: () => StoreUnderTest): void {
  describe(`the ${name} store contract`, () => {
    it('admits the quota for a new key, counting remaining down, then refuses', async () => {
      const { store, key } = setup();
      const k = key('countdown');
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await store.consume(k, [hour]));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions.map((d) => d.policies[0]!.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    });

    it('reports a refusal with r=0, Retry-After >= 1 and t equal to Retry-After', async () => {
      const { store, key } = setup();
      const k = key('refusal');
      for (let i = 0; i < 5; i++) await store.consume(k, [hour]);
      const refused = await store.consume(k, [hour]);
      const [status] = refused.policies;
      expect(refused.allowed).toBe(false);
      expect(status).toMatchObject({ allowed: false, remaining: 0 });
      // One request frees up every 720 s; a little of it may already have passed.
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(719);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(720);
      expect(status!.resetSeconds).toBe(refused.retryAfterSeconds);
    });

    it('keeps keys apart', async () => {
      const { store, key } = setup();
      const one = { name: 'one', quota: 1, windowSeconds: 3600 };
      expect((await store.consume(key('a'), [one])).allowed).toBe(true);
      expect((await store.consume(key('a'), [one])).allowed).toBe(false);
      expect((await store.consume(key('b'), [one])).allowed).toBe(true);
    });

    it('consumes nothing from any policy when one policy refuses', async () => {
      const { store, key } = setup();
      const k = key('atomic');
      const burst = { name: 'burst', quota: 1, windowSeconds: 3600 };
      expect((await store.consume(k, [burst, hour])).allowed).toBe(true);
      for (let i = 0; i < 5; i++) expect((await store.consume(k, [burst, hour])).allowed).toBe(false);
      // The refused attempts left the hourly quota at 4 of 5.
      const alone = await store.consume(k, [hour]);
      expect(alone.policies[0]!.remaining).toBe(3);
    });

    it('returns quota as time passes (one request per window / quota)', async () => {
      const { store, key, advance } = setup();
      const k = key('refill');
      const perSecond = { name: 'second', quota: 2, windowSeconds: 1 };
      await store.consume(k, [perSecond]);
      await store.consume(k, [perSecond]);
      expect((await store.consume(k, [perSecond])).allowed).toBe(false);
      await advance(1050);
      const after = await store.consume(k, [perSecond]);
      expect(after.allowed).toBe(true);
      expect(after.policies[0]!.remaining).toBe(1);
    });

    it('admits exactly the quota of many concurrent calls', async () => {
      const { store, key } = setup();
      const k = key('concurrent');
      const policy = { name: 'race', quota: 17, windowSeconds: 3600 };
      const decisions = await Promise.all(Array.from({ length: 60 }, () => store.consume(k, [policy])));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(17);
    });

    it('starts a fresh bucket when a policy of the same name changes its quota', async () => {
      const { store, key } = setup();
      const k = key('changed');
      await store.consume(k, [{ name: 'p', quota: 1, windowSeconds: 3600 }]);
      expect((await store.consume(k, [{ name: 'p', quota: 2, windowSeconds: 3600 }])).allowed).toBe(true);
    });
  });
}
