import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/idempotency/index.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('memory', { make: (now) => memoryStore({ now }) });

const response = { status: 201, headers: {}, body: new Uint8Array([1]) };

describe('the memory store, when full', () => {
  it('evicts expired records first', async () => {
    const clock = { t: 0 };
    const store = memoryStore({ maxEntries: 2, now: () => clock.t });
    const a = await store.claim('a', 'fp', 10);
    const b = await store.claim('b', 'fp', 1_000);
    if (a.kind !== 'claimed' || b.kind !== 'claimed') throw new Error('expected claims');
    await store.complete('b', b.token, response, 1_000);
    clock.t = 10;
    expect((await store.claim('c', 'fp', 1_000)).kind).toBe('claimed');
    // 'b' survived: only the expired 'a' had to go.
    expect((await store.claim('b', 'fp', 1_000)).kind).toBe('completed');
  });

  it('then evicts the oldest completed record, never a live claim', async () => {
    const store = memoryStore({ maxEntries: 2, now: () => 0 });
    const a = await store.claim('a', 'fp', 1_000);
    const b = await store.claim('b', 'fp', 1_000);
    if (a.kind !== 'claimed' || b.kind !== 'claimed') throw new Error('expected claims');
    await store.complete('b', b.token, response, 1_000);
    const c = await store.claim('c', 'fp', 1_000);
    expect(c.kind).toBe('claimed');
    expect(await store.claim('a', 'fp', 1_000)).toEqual({ kind: 'in-progress' });
    // 'b' was evicted: the key is free again (its replay protection is the price of the bound).
    if (c.kind === 'claimed') await store.complete('c', c.token, response, 1_000);
    expect((await store.claim('b', 'fp', 1_000)).kind).toBe('claimed');
    expect(await store.claim('a', 'fp', 1_000)).toEqual({ kind: 'in-progress' });
  });

  it('refuses a claim when every record is a live claim', async () => {
    const store = memoryStore({ maxEntries: 1, now: () => 0 });
    await store.claim('a', 'fp', 1_000);
    await expect(store.claim('b', 'fp', 1_000)).rejects.toThrow(/full/);
  });

  it('rejects a size that is not a positive integer at start-up', () => {
    expect(() => memoryStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});
