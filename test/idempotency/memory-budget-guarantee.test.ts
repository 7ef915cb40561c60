import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { nodeClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * docs/idempotency.md, "Budgets": with the memory store's defaults, no group of fewer than 1 000
 * owners can make another owner's claim fail (issue 27, finding 5: 17 principals times 21 keys of
 * 200 KB stored 400s filled the store, and everyone else's keyed writes got 503).
 */
const FINGERPRINT = 'f'.repeat(64);
const LEASE_MS = 60_000;

/** Stands for the defaults scaled down by 10: 10 000 records and 6.4 MB, 10 records and 6.4 KB an owner. */
const SCALED = { maxEntries: 10_000, maxBytes: 6_400_000, maxResponseBytes: 4_096, now: () => 0 };

/** One zeroed body per length, shared: the store only reads it (a fresh 10 MB one per completion took seconds). */
const bodies = new Map<number, Uint8Array>();
function zeros(length: number): Uint8Array {
  let body = bodies.get(length);
  if (body === undefined) {
    body = new Uint8Array(length);
    bodies.set(length, body);
  }
  return body;
}

async function fill(
  store: ReturnType<typeof memoryIdempotencyStore>,
  owner: string,
  bodyBytes: (i: number) => number,
  complete: (i: number) => boolean,
): Promise<void> {
  for (let i = 0; ; i++) {
    const key = `${owner}:key-${i}`;
    const claim = await store.claim(key, FINGERPRINT, LEASE_MS, owner);
    if (claim.kind !== 'claimed') {
      // Only the owner's own quota may refuse it, never the store.
      expect(claim).toMatchObject({ kind: 'full', scope: 'owner' });
      return;
    }
    if (complete(i)) {
      const body = zeros(bodyBytes(i));
      await store.complete(
        key,
        claim.token,
        { status: 400, headers: { 'content-type': 'x' }, body },
        LEASE_MS,
      );
    }
  }
}

describe('fewer than 1 000 owners cannot fill the memory store for another', () => {
  it('999 owners each filling their quota with the largest responses leave room for the 1 000th', async () => {
    const store = memoryIdempotencyStore(SCALED);
    for (let owner = 0; owner < 999; owner++) {
      await fill(
        store,
        `sub:${owner}`,
        () => 10_000_000,
        (i) => i % 2 === 0,
      );
    }
    expect(await store.claim('victim:key', FINGERPRINT, LEASE_MS, 'sub:victim')).toMatchObject({
      kind: 'claimed',
    });
  });

  it('does not store a response over maxResponseBytes (its claim is released), and says so', async () => {
    const store = memoryIdempotencyStore({ maxResponseBytes: 100, now: () => 0 });
    const claim = await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    const big = { status: 201, headers: {}, body: new Uint8Array(101) };
    expect(await store.complete('k', claim.token, big, LEASE_MS)).toBe(false);
    expect(store.size).toBe(0);
    expect(await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1')).toMatchObject({ kind: 'claimed' });
  });

  it('does not store a response whose encoding would outgrow its claim, though its length fits', async () => {
    const store = memoryIdempotencyStore({ maxResponseBytes: 100, now: () => 0 });
    const claim = await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    // 90 characters, 180 bytes in UTF-8: within maxResponseBytes by length, not once stored.
    const wide = { status: 201, headers: { 'x-note': 'é'.repeat(90) }, body: new Uint8Array() };
    expect(await store.complete('k', claim.token, wide, LEASE_MS)).toBe(false);
    expect(store.size).toBe(0);
  });

  it('derives the owner budgets from the totals, a thousandth each, unless given', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 5_000, now: () => 0 });
    for (let i = 0; i < 5; i++) {
      expect(await store.claim(`k${i}`, FINGERPRINT, LEASE_MS, 'sub:1')).toMatchObject({ kind: 'claimed' });
    }
    expect(await store.claim('k5', FINGERPRINT, LEASE_MS, 'sub:1')).toMatchObject({
      kind: 'full',
      scope: 'owner',
    });
    expect(() => memoryIdempotencyStore({ maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
  });

  test.prop(
    [
      fc.array(
        fc.record({
          owner: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 998 })),
          body: fc.integer({ min: 0, max: 2_000 }),
          complete: fc.boolean(),
        }),
        { minLength: 1_050, maxLength: 1_500 },
      ),
    ],
    { numRuns: 30 },
  )('whatever up to 999 owners claim and store, another owner can still claim', async (steps) => {
    // A thousandth each: 1 record and 1 000 bytes an owner; a response counts at most 500.
    const store = memoryIdempotencyStore({
      maxEntries: 1_000,
      maxBytes: 1_000_000,
      maxResponseBytes: 500,
      now: () => 0,
    });
    let n = 0;
    for (const { owner, body, complete } of steps) {
      const key = `k${n++}`;
      const claim = await store.claim(key, FINGERPRINT, LEASE_MS, `sub:${owner}`);
      if (claim.kind === 'full') expect(claim.scope).toBe('owner');
      if (claim.kind === 'claimed' && complete) {
        await store.complete(
          key,
          claim.token,
          { status: 201, headers: {}, body: new Uint8Array(body) },
          LEASE_MS,
        );
      }
    }
    expect((await store.claim('victim', FINGERPRINT, LEASE_MS, 'sub:victim')).kind).toBe('claimed');
  });
});

describe('the reference app: many principals storing large 400s (finding 5)', () => {
  it("another principal's keyed write still succeeds", async () => {
    const client = await nodeClient(referenceApp().app);
    try {
      const name = 'n'.repeat(90_000);
      for (let p = 0; p < 20; p++) {
        const token = await bearer(`flood-${p}`, 'standards:read standards:write');
        for (let k = 0; k < 25; k++) {
          const response = await client.request('POST', '/api/v1/standards/', {
            headers: {
              authorization: token,
              'content-type': 'application/vnd.api+json',
              'idempotency-key': `"flood-${k}"`,
            },
            body: JSON.stringify({
              data: { type: 'standards', attributes: { code: 'A', name: 'b', [name]: 1 } },
            }),
          });
          expect([400, 429]).toContain(response.status);
        }
      }
      const victim = await client.request('POST', '/api/v1/standards/', {
        headers: {
          authorization: await bearer('victim', 'standards:read standards:write'),
          'content-type': 'application/vnd.api+json',
          'idempotency-key': '"victim-1"',
        },
        body: JSON.stringify({ data: { type: 'standards', attributes: { code: 'VICTIM', name: 'v' } } }),
      });
      expect(victim.status).toBe(201);
    } finally {
      await client.close();
    }
  }, 60_000);
});
