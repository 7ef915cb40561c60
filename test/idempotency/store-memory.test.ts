import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import {
  decodeResponse,
  encodeFingerprint,
  encodeRecord,
  recordExpiry,
  recordMatches,
  recordOwner,
} from '../../src/idempotency/stores/memory/record-codec.js';
import { describeStoreContract } from './store-contract.js';

// The contract drives one owner far past the default share (a hundredth of the store): it is given
// room for that. Its budget cases run on a store of their own; the guarantee the totals give is
// tested below and in memory-budget-guarantee.test.ts.
describeStoreContract('memory', {
  make: (now) => memoryIdempotencyStore({ now, ownerMaxEntries: 100_000, ownerMaxBytes: 64 * 1024 * 1024 }),
  makeLimited: async (now, limits) => memoryIdempotencyStore({ now, ...limits }),
});

const response = { status: 201, headers: {}, body: new Uint8Array([1]) };

describe('the memory store, when full', () => {
  it('refuses a claim when every record is live, whatever their state', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 2, ownerMaxEntries: 2, now: () => 0 });
    const a = await store.claim('a', 'fp', 1_000);
    await store.claim('b', 'fp', 1_000, 'someone');
    if (a.kind !== 'claimed') throw new Error('expected a claim');
    await store.complete('a', a.token, response, 1_000);
    // No wait is promised: when room frees depends on other owners' records.
    expect(await store.claim('c', 'fp', 1_000)).toEqual({ kind: 'full', scope: 'store' });
    expect((await store.claim('a', 'fp', 1_000)).kind).toBe('completed');
    expect(store.size).toBe(2);
  });

  it('reclaims every expired record, of any duration, and its bytes', async () => {
    const clock = { t: 0 };
    const store = memoryIdempotencyStore({
      ownerMaxEntries: 1_000,
      ownerMaxBytes: 1 << 26,
      now: () => clock.t,
    });
    for (let i = 0; i < 500; i++) {
      const claim = await store.claim(`k${i}`, 'fp', 10 + (i % 3));
      if (claim.kind === 'claimed' && i % 2 === 0)
        await store.complete(`k${i}`, claim.token, response, 50 + (i % 5));
    }
    expect(store.size).toBe(500);
    clock.t = 100;
    // Claims reclaim a few expired records each; a full store reclaims all before refusing.
    for (let i = 0; i < 100; i++) await store.claim(`n${i}`, 'fp', 1_000, `owner-${i}`);
    expect(store.size).toBe(100);
    const tight = memoryIdempotencyStore({ maxEntries: 3, now: () => clock.t });
    for (const key of ['x', 'y', 'z']) await tight.claim(key, 'fp', 10, key);
    clock.t += 10;
    expect((await tight.claim('w', 'fp', 10, 'w')).kind).toBe('claimed');
    expect(tight.size).toBe(1);
  });

  it('returns the bytes of released and expired records to the budget', async () => {
    const clock = { t: 0 };
    const store = memoryIdempotencyStore({ now: () => clock.t });
    const claim = await store.claim('a', 'fp', 10);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    await store.complete('a', claim.token, { ...response, body: new Uint8Array(1_000) }, 10);
    expect(store.bytes).toBeGreaterThan(1_000);
    clock.t = 10;
    await store.claim('b', 'fp', 10);
    const b = await store.claim('b', 'other', 10);
    expect(b.kind).toBe('mismatch');
    expect(store.size).toBe(1);
    clock.t = 20;
    await store.claim('c', 'fp', 10);
    expect(store.size).toBe(1);
    // One pending claim: its key and fingerprint, and the room it holds for a brief record.
    expect(store.bytes).toBeLessThan(400);
  });

  it('rejects budgets that are not positive integers at start-up, naming the option', () => {
    expect(() => memoryIdempotencyStore({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => memoryIdempotencyStore({ maxBytes: 1.5 })).toThrow(/maxBytes/);
    expect(() => memoryIdempotencyStore({ ownerMaxEntries: -1 })).toThrow(/ownerMaxEntries/);
    expect(() => memoryIdempotencyStore({ ownerMaxBytes: Number.NaN })).toThrow(/ownerMaxBytes/);
  });
});

describe('the compact record of the memory store', () => {
  const headerName = fc.oneof(
    fc.constantFrom('content-type', 'location', 'etag', 'link'),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/),
  );
  const fingerprint = fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 80 }));

  it('gives back every field it was given', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 48 - 1 }),
        fc.nat({ max: 2 ** 48 - 1 }),
        fingerprint,
        fc.integer({ min: 100, max: 599 }),
        // ASCII values short and long, and values outside ASCII: each is written its own way.
        fc.dictionary(
          headerName,
          fc.oneof(fc.string({ maxLength: 100 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
          { maxKeys: 8 },
        ),
        fc.uint8Array({ maxLength: 300 }),
        (expiresAt, owner, fp, status, headers, body) => {
          const record = encodeRecord(expiresAt, owner, fp, { status, headers, body });
          expect(recordExpiry(record)).toBe(expiresAt);
          expect(recordOwner(record)).toBe(owner);
          expect(recordMatches(record, encodeFingerprint(fp).toString('latin1'))).toBe(true);
          const decoded = decodeResponse(record);
          expect(decoded.status).toBe(status);
          expect(decoded.headers).toEqual(headers);
          expect(Buffer.from(decoded.body).equals(Buffer.from(body))).toBe(true);
        },
      ),
    );
  });

  it('keeps a hex SHA-256 fingerprint as its first 8 bytes', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (fp) => {
        const expected = Buffer.concat([Buffer.from([1]), Buffer.from(fp.slice(0, 16), 'hex')]);
        expect(encodeFingerprint(fp).equals(expected)).toBe(true);
      }),
    );
  });

  it('tells fingerprints apart', () => {
    fc.assert(
      fc.property(fingerprint, fingerprint, (a, b) => {
        fc.pre(a !== b);
        const record = encodeRecord(0, 0, a, { status: 200, headers: {}, body: new Uint8Array(0) });
        expect(recordMatches(record, encodeFingerprint(b).toString('latin1'))).toBe(false);
      }),
    );
  });
});

describe('the memory store under any sequence of claims by several owners', () => {
  type Op =
    | { readonly op: 'claim'; readonly key: number; readonly owner: number; readonly ms: number }
    | { readonly op: 'complete'; readonly key: number; readonly ms: number }
    | { readonly op: 'advance'; readonly ms: number };
  const ops = fc.array(
    fc.oneof(
      fc.record({
        op: fc.constant('claim' as const),
        key: fc.nat({ max: 9 }),
        owner: fc.nat({ max: 2 }),
        ms: fc.constantFrom(5, 20),
      }),
      fc.record({
        op: fc.constant('complete' as const),
        key: fc.nat({ max: 9 }),
        ms: fc.constantFrom(5, 50),
      }),
      fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(1, 5, 20) }),
    ),
    // Long enough for an owner to claim, lose and claim again a key many times over.
    { maxLength: 150 },
  );

  it('refuses exactly when the owner or the store is full of live records, says when it has room, and never loses one', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence: Op[]) => {
        const clock = { t: 0 };
        const store = memoryIdempotencyStore({ maxEntries: 5, ownerMaxEntries: 2, now: () => clock.t });
        // The model: key -> owner, expiry, whether completed, and the claim's token.
        const model = new Map<number, { owner: number; expiresAt: number; done: boolean; token: string }>();
        const live = () => [...model.entries()].filter(([, r]) => r.expiresAt > clock.t);
        for (const step of sequence) {
          if (step.op === 'advance') {
            clock.t += step.ms;
          } else if (step.op === 'claim') {
            const outcome = await store.claim(`k${step.key}`, 'fp', step.ms, `o${step.owner}`);
            const record = model.get(step.key);
            if (record !== undefined && record.expiresAt > clock.t) {
              expect(outcome.kind).toBe(record.done ? 'completed' : 'in-progress');
            } else if (live().filter(([, r]) => r.owner === step.owner).length >= 2) {
              // Room comes when the first of the owner's live records ends (its bytes never bind here).
              const ends = live()
                .filter(([, r]) => r.owner === step.owner)
                .map(([, r]) => r.expiresAt);
              expect(outcome).toMatchObject({
                kind: 'full',
                scope: 'owner',
                retryAfterMs: Math.min(...ends) - clock.t,
              });
            } else if (live().length >= 5) {
              expect(outcome).toMatchObject({ kind: 'full', scope: 'store' });
            } else {
              expect(outcome.kind).toBe('claimed');
              if (outcome.kind === 'claimed') {
                model.set(step.key, {
                  owner: step.owner,
                  expiresAt: clock.t + step.ms,
                  done: false,
                  token: outcome.token,
                });
              }
            }
          } else {
            const record = model.get(step.key);
            const token = record?.token ?? 'none';
            const ok = await store.complete(`k${step.key}`, token, response, step.ms);
            const owned = record !== undefined && !record.done && record.expiresAt > clock.t;
            expect(ok).toBe(owned);
            if (owned) Object.assign(record, { done: true, expiresAt: clock.t + step.ms });
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('the memory store, when its budgets are full', () => {
  const LEASE = 60_000;
  const clock = { t: 0 };
  const limited = () =>
    memoryIdempotencyStore({
      maxEntries: 4,
      maxBytes: 1_000_000,
      ownerMaxEntries: 2,
      ownerMaxBytes: 4_096,
      now: () => clock.t,
    });
  const claimed = (outcome: { kind: string; token?: string }) => {
    if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
    return outcome.token as string;
  };

  it("reads an owner's Retry-After from its live records only, whatever its keys' history", async () => {
    const store = memoryIdempotencyStore({ ownerMaxEntries: 3, now: () => clock.t });
    clock.t = 0;
    const refusedFor = async (key: string, owner: string, retryAfterMs: number) =>
      expect(await store.claim(key, 'fp', 10, owner)).toEqual({ kind: 'full', scope: 'owner', retryAfterMs });
    // alice keeps a0 throughout (an owner with no record left is forgotten, its history with it);
    // she claims k1, lets it go and claims it again; her k9 goes, and bob claims k9.
    claimed(await store.claim('a0', 'fp', 1_000, 'alice'));
    await store.release('k1', claimed(await store.claim('k1', 'fp', 10, 'alice')));
    await store.release('k9', claimed(await store.claim('k9', 'fp', 10, 'alice')));
    claimed(await store.claim('k9', 'fp', 100, 'bob'));
    claimed(await store.claim('k1', 'fp', 50, 'alice'));
    claimed(await store.claim('k2', 'fp', 10, 'alice'));
    // Her room comes when k2 ends (10 ms), not when k1 (listed twice) or bob's k9 would.
    await refusedFor('k3', 'alice', 10);
    // An owner that keeps one record while it claims and lets go of many: its key list is compacted
    // along the way (past twice its live records), and still read right.
    claimed(await store.claim('c1', 'fp', 30, 'carol'));
    for (let i = 0; i < 100; i++) {
      await store.release(`r${i % 7}`, claimed(await store.claim(`r${i % 7}`, 'fp', 10, 'carol')));
    }
    claimed(await store.claim('c2', 'fp', 20, 'carol'));
    claimed(await store.claim('c3', 'fp', 40, 'carol'));
    await refusedFor('c4', 'carol', 20);
  });

  it("refuses an owner's claim past its quota and keeps its records, while others still claim", async () => {
    const store = limited();
    const a1 = claimed(await store.claim('a1', 'fp', LEASE, 'alice'));
    claimed(await store.claim('a2', 'fp', LEASE, 'alice'));
    expect(await store.claim('a3', 'fp', LEASE, 'alice')).toMatchObject({ kind: 'full', scope: 'owner' });
    claimed(await store.claim('b1', 'fp', LEASE, 'bob'));
    expect(await store.claim('a1', 'fp', LEASE, 'alice')).toEqual({ kind: 'in-progress' });
    expect(await store.release('a1', a1)).toBe(true);
    claimed(await store.claim('a3', 'fp', LEASE, 'alice'));
  });

  it('refuses every new claim when the store is full and never drops a live record', async () => {
    const store = limited();
    const c1 = claimed(await store.claim('c1', 'fp', LEASE, 'carol'));
    for (const owner of ['dave', 'erin', 'frank'])
      claimed(await store.claim(`${owner}1`, 'fp', LEASE, owner));
    expect(await store.complete('c1', c1, response, LEASE)).toBe(true);
    for (let i = 0; i < 20; i++) {
      expect(await store.claim(`g${i}`, 'fp', LEASE, `owner-${i}`)).toMatchObject({
        kind: 'full',
        scope: 'store',
      });
    }
    expect((await store.claim('c1', 'fp', LEASE, 'carol')).kind).toBe('completed');
  });

  it('reclaims expired records before refusing', async () => {
    const store = limited();
    const h1 = claimed(await store.claim('h1', 'fp', LEASE, 'heidi'));
    await store.complete('h1', h1, response, 10);
    claimed(await store.claim('h2', 'fp', LEASE, 'heidi'));
    expect((await store.claim('h3', 'fp', LEASE, 'heidi')).kind).toBe('full');
    clock.t += 10;
    claimed(await store.claim('h3', 'fp', LEASE, 'heidi'));
  });

  it("counts the owner's bytes with the room each claim holds for a brief record", async () => {
    // 700 bytes an owner, 324 held per pending claim: a third claim of one owner does not fit.
    const store = memoryIdempotencyStore({ ownerMaxBytes: 700, now: () => clock.t });
    claimed(await store.claim('i1', 'fp', LEASE, 'ivan'));
    claimed(await store.claim('i2', 'fp', LEASE, 'ivan'));
    expect(await store.claim('i3', 'fp', LEASE, 'ivan')).toMatchObject({ kind: 'full', scope: 'owner' });
    claimed(await store.claim('j1', 'fp', LEASE, 'judy'));
  });
});
