import { fc, test } from '@fast-check/vitest';
import keySlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { issuedToken, ownerKeys, readToken, recordToken } from '../../src/idempotency/stores/redis/keys.js';

// Owners and keys drawn from text heavy in the characters a hash tag is made of.
const text = fc.string({
  unit: fc.constantFrom('a', 'b', '{', '}', '%', ':', '#', '7', 'B', 'D'),
  maxLength: 8,
});

describe('the Redis idempotency key layout', () => {
  test.prop([text, text, text, fc.constantFrom('idempotency:', 'app:idem:', '')])(
    "keeps all of an owner's records in one hash, in one Redis Cluster slot, each under a field of its own",
    (owner, keyA, keyB, prefix) => {
      const a = ownerKeys(prefix, owner, keyA);
      const b = ownerKeys(prefix, owner, keyB);
      expect(a.owner).toBe(b.owner);
      // cluster-key-slot implements the slot rule of the Redis Cluster specification on its own.
      expect(keySlot(a.owner)).toBe(keySlot(`{${a.owner.slice(a.owner.indexOf('{') + 1, -1)}}`));
      expect(a.field === b.field).toBe(keyA === keyB);
      // The usage's own fields: no record's field is one of them.
      expect(['n', 'b', 'e']).not.toContain(a.field);
    },
  );

  test.prop([text, text, text, text], { numRuns: 500 })(
    "never lets one owner's key name another owner's hash",
    (ownerA, keyA, ownerB, keyB) => {
      const a = ownerKeys('p:', ownerA, keyA);
      const b = ownerKeys('p:', ownerB, keyB);
      expect(a.owner === b.owner).toBe(ownerA === ownerB);
    },
  );

  test.prop([text, fc.option(fc.nat({ max: 20 }), { nil: undefined })])(
    "reads back from a token it issued the record's token, the owner and the replicas online (capped at 9), and nothing from a short string",
    (owner, online) => {
      const stored = recordToken(owner);
      expect(readToken(issuedToken(stored, online))).toEqual({
        stored,
        owner,
        onlineReplicas: online === undefined ? undefined : Math.min(9, online),
      });
      expect(readToken('never-issued')).toBeUndefined();
    },
  );

  it('spreads owners over the slots of three masters', () => {
    const masters = [0, 0, 0];
    for (let i = 0; i < 3_000; i++) {
      const slot = keySlot(ownerKeys('idempotency:', `sub:user-${i}`, 'k').owner);
      masters[Math.min(2, Math.floor(slot / 5461))]! += 1;
    }
    for (const count of masters) expect(count).toBeGreaterThan(800);
  });
});
