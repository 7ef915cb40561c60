import { fc, test } from '@fast-check/vitest';
import keySlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { ownerKeys, ownerOfToken, ownerToken } from '../../src/idempotency/redis-keys.js';

// Owners and keys drawn from text heavy in the characters a hash tag is made of.
const text = fc.string({
  unit: fc.constantFrom('a', 'b', '{', '}', '%', ':', '#', '7', 'B', 'D'),
  maxLength: 8,
});

describe('the Redis idempotency key layout', () => {
  test.prop([text, text, fc.constantFrom('idempotency:', 'app:idem:', '')], { seed: 28 })(
    "puts a record, its owner's expiry set and usage in one Redis Cluster slot",
    (owner, key, prefix) => {
      const { record, expiry, usage } = ownerKeys(prefix, owner, key);
      // cluster-key-slot implements the slot rule of the Redis Cluster specification on its own.
      expect(keySlot(expiry)).toBe(keySlot(record));
      expect(keySlot(usage)).toBe(keySlot(record));
    },
  );

  test.prop([text, text, text, text], { seed: 28, numRuns: 500 })(
    "never lets one owner's key name another owner's record, expiry set or usage",
    (ownerA, keyA, ownerB, keyB) => {
      fc.pre(ownerA !== ownerB || keyA !== keyB);
      const a = ownerKeys('p:', ownerA, keyA);
      const b = ownerKeys('p:', ownerB, keyB);
      expect(a.record).not.toBe(b.record);
      expect([b.expiry, b.usage]).not.toContain(a.record);
      if (ownerA !== ownerB) expect([a.expiry, a.usage]).not.toEqual([b.expiry, b.usage]);
    },
  );

  test.prop([text], { seed: 28 })(
    'reads the owner back from a token it issued, and none from a short string',
    (owner) => {
      expect(ownerOfToken(ownerToken(owner))).toBe(owner);
      expect(ownerOfToken('never-issued')).toBeUndefined();
    },
  );

  it('spreads owners over the slots of three masters', () => {
    const masters = [0, 0, 0];
    for (let i = 0; i < 3_000; i++) {
      const slot = keySlot(ownerKeys('idempotency:', `sub:user-${i}`, 'k').record);
      masters[Math.min(2, Math.floor(slot / 5461))]! += 1;
    }
    for (const count of masters) expect(count).toBeGreaterThan(800);
  });
});
