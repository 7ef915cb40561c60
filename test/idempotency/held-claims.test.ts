import { describe, expect, it } from 'vitest';
import { isPromise } from '../../src/core/maybe-promise.js';
import { heldClaims, type IdempotencyStore, memoryIdempotencyStore } from '../../src/idempotency/index.js';

const RESPONSE = { status: 201, headers: {}, body: new Uint8Array(0) };

describe('heldClaims over a store that answers at once', () => {
  it('answers at once too, and counts the claim held until it completes or is released', () => {
    const claims = heldClaims(memoryIdempotencyStore());
    const claimed = claims.store.claim('k1', 'f', 60_000, 'u1');
    const other = claims.store.claim('k2', 'f', 60_000, 'u1');
    expect(isPromise(claimed)).toBe(false);
    expect(claims.size).toBe(2);
    if (isPromise(claimed) || claimed.kind !== 'claimed' || isPromise(other) || other.kind !== 'claimed')
      throw new Error('both keys were free');
    expect(claims.store.complete('k1', claimed.token, RESPONSE, 60_000)).toBe(true);
    expect(claims.store.release('k2', other.token)).toBe(true);
    expect(claims.size).toBe(0);
  });

  it('keeps a claim whose completion threw, so that releaseAll lets it go', async () => {
    const memory = memoryIdempotencyStore();
    const store: IdempotencyStore = {
      ...memory,
      complete: () => {
        throw new RangeError('response too large to encode');
      },
    };
    const claims = heldClaims(store);
    const claimed = claims.store.claim('k1', 'f', 60_000, 'u1');
    if (isPromise(claimed) || claimed.kind !== 'claimed') throw new Error('the key was free');
    expect(() => claims.store.complete('k1', claimed.token, RESPONSE, 60_000)).toThrow(RangeError);
    expect(claims.size).toBe(1);
    expect(await claims.releaseAll()).toBe(1);
    // Released: the key is free again.
    expect(memory.claim('k1', 'f', 60_000, 'u1')).toMatchObject({ kind: 'claimed' });
  });
});
