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
    "puts a record and its owner's usage in one Redis Cluster slot",
    (owner, key, prefix) => {
      const { record, usage } = ownerKeys(prefix, owner, key);
      // cluster-key-slot implements the slot rule of the Redis Cluster specification on its own.
      expect(keySlot(usage)).toBe(keySlot(record));
      // The scripts name the record's entry in the usage by the record key after the owner's part.
      expect(record.slice(usage.length - '#usage'.length)).toBe(`:${key}`);
    },
  );

  test.prop([text, text, text, text], { seed: 28, numRuns: 500 })(
    "never lets one owner's key name another owner's record or usage",
    (ownerA, keyA, ownerB, keyB) => {
      fc.pre(ownerA !== ownerB || keyA !== keyB);
      const a = ownerKeys('p:', ownerA, keyA);
      const b = ownerKeys('p:', ownerB, keyB);
      expect(a.record).not.toBe(b.record);
      expect(b.usage).not.toBe(a.record);
      if (ownerA !== ownerB) expect(a.usage).not.toBe(b.usage);
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
