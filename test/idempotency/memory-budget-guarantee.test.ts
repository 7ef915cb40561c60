import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { nodeClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * docs/idempotency.md, "Budgets": with the memory store's defaults, no group of fewer than 100
 * owners can make another owner's claim fail (issue 27, finding 5: 17 principals times 21 keys of
 * 200 KB stored 400s filled the store, and everyone else's keyed writes got 503), and a response
 * too large for its owner's budget is kept brief, never dropped (issue 35: its retry ran again).
 */
const FINGERPRINT = 'f'.repeat(64);
const LEASE_MS = 60_000;

/** Stands for the defaults scaled down by 10: 10 000 records and 10 MiB, 100 records and 100 KiB an owner. */
const SCALED = { maxEntries: 10_000, maxBytes: 10 * 1024 * 1024, now: () => 0 };

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

describe('fewer than 100 owners cannot fill the memory store for another', () => {
  it('99 owners each filling their quota with the largest responses leave room for the 100th', async () => {
    const store = memoryIdempotencyStore(SCALED);
    for (let owner = 0; owner < 99; owner++) {
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

  it('keeps a response too large for its owner brief: status, Location, validators, no body', async () => {
    const store = memoryIdempotencyStore({ now: () => 0 });
    const claim = await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    const headers = { 'content-type': 'application/vnd.api+json', location: '/orders/7', etag: '"1"' };
    const big = { status: 201, headers, body: zeros(2 * 1024 * 1024) };
    expect(await store.complete('k', claim.token, big, LEASE_MS)).toBe(true);
    expect(await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1')).toEqual({
      kind: 'completed',
      response: {
        status: 201,
        headers: { 'idempotent-content-omitted': 'true', location: '/orders/7', etag: '"1"' },
        body: new Uint8Array(0),
      },
    });
    expect(store.bytes).toBeLessThan(1_000);
  });

  it('keeps brief a response whose encoding would outgrow its room, though its length fits', async () => {
    const store = memoryIdempotencyStore({ ownerMaxBytes: 2_000, now: () => 0 });
    const claim = await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1');
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    // 'é' is one character and two bytes in UTF-8: within the budget by length, not once stored.
    const wide = { status: 201, headers: { 'x-note': 'é'.repeat(700) }, body: new Uint8Array() };
    expect(await store.complete('k', claim.token, wide, LEASE_MS)).toBe(true);
    const replay = await store.claim('k', FINGERPRINT, LEASE_MS, 'sub:1');
    expect(replay.kind === 'completed' && replay.response.headers).toEqual({
      'idempotent-content-omitted': 'true',
    });
    expect(store.bytes).toBeLessThanOrEqual(2_000);
  });

  it('derives the owner budgets from the totals, a hundredth each, unless given', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 500, now: () => 0 });
    for (let i = 0; i < 5; i++) {
      expect(await store.claim(`k${i}`, FINGERPRINT, LEASE_MS, 'sub:1')).toMatchObject({ kind: 'claimed' });
    }
    expect(await store.claim('k5', FINGERPRINT, LEASE_MS, 'sub:1')).toMatchObject({
      kind: 'full',
      scope: 'owner',
    });
  });

  test.prop(
    [
      fc.array(
        fc.record({
          owner: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 98 })),
          body: fc.integer({ min: 0, max: 3_000 }),
          complete: fc.boolean(),
        }),
        { minLength: 105, maxLength: 300 },
      ),
    ],
    { numRuns: 30 },
  )('whatever up to 99 owners claim and store, another owner can still claim', async (steps) => {
    // A hundredth each: 1 record and 1 000 bytes an owner; a larger response is kept brief.
    const store = memoryIdempotencyStore({ maxEntries: 100, maxBytes: 100_000, now: () => 0 });
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
    expect(store.bytes).toBeLessThanOrEqual(100_000);
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
