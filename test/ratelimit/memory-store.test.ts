import { describe, expect, it } from 'vitest';
import { memoryRateLimitStore } from '../../src/ratelimit/index.js';
import { storeContract } from './store-contract.js';

const T0 = 1_760_000_000_000;

function fakeClock() {
  let now = T0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

storeContract('memory', () => {
  const clock = fakeClock();
  const store = memoryRateLimitStore({ now: clock.now });
  return { store, key: (label) => label, advance: async (ms) => void clock.advance(ms) };
});

describe('when the memory store holds many clients', () => {
  const policy = { name: 'p', quota: 3, windowSeconds: 10 };

  it('never holds more than maxEntries, dropping the least recently admitted', async () => {
    const clock = fakeClock();
    const store = memoryRateLimitStore({ maxEntries: 10, now: clock.now });
    for (let i = 0; i < 25; i++) await store.consume(`client-${i}`, [policy]);
    expect(store.size).toBe(10);
    // client-24 is still tracked; client-0 was dropped and starts afresh.
    expect((await store.consume('client-24', [policy])).policies[0]!.remaining).toBe(1);
    expect((await store.consume('client-0', [policy])).policies[0]!.remaining).toBe(2);
  });

  it('evicts expired entries as it goes', async () => {
    const clock = fakeClock();
    const store = memoryRateLimitStore({ now: clock.now });
    for (let i = 0; i < 20; i++) await store.consume(`client-${i}`, [policy]);
    expect(store.size).toBe(20);
    clock.advance(10_001);
    // Cleanup is amortized: every 16th call a persistent cursor examines the next 128 entries.
    for (let i = 0; i < 32; i++) await store.consume(`newcomer-${i % 2}`, [policy]);
    expect(store.size).toBe(2);
  });

  it('keeps entries that have not expired yet', async () => {
    const clock = fakeClock();
    const store = memoryRateLimitStore({ now: clock.now });
    for (let i = 0; i < 5; i++) await store.consume(`client-${i}`, [policy]);
    clock.advance(3_000); // one request costs 10/3 s: not yet paid back
    await store.consume('newcomer', [policy]);
    expect(store.size).toBe(6);
  });

  it('rejects a bad configuration at start-up', () => {
    expect(() => memoryRateLimitStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});
