import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ClaimOutcome,
  IdempotencyStore,
  StoredResponse,
  StoreLimits,
} from '../../src/idempotency/index.js';

/** How a contract run obtains a store of one kind. */
export interface StoreFactory {
  /** Connect, create tables... once before the suite. */
  readonly before?: () => Promise<void>;
  /** A store reading time from `now`. Called once per suite. */
  readonly make: (now: () => number) => IdempotencyStore;
  /**
   * A store of its own (no records shared with any other) with these budgets, for the budget
   * tests. Absent: the store has no budgets and those tests are skipped.
   */
  readonly makeLimited?: (now: () => number, limits: StoreLimits) => Promise<IdempotencyStore>;
  /** False when the store enforces only the per-owner budgets (the PostgreSQL store). */
  readonly totalBudgets?: boolean;
  readonly after?: () => Promise<void>;
}

const LEASE = 1_000;
const RETENTION = 60_000;

function response(status: number, text: string, headers: Record<string, string> = {}): StoredResponse {
  return { status, headers, body: new Uint8Array(Buffer.from(text)) };
}

function expectClaimed(outcome: ClaimOutcome): string {
  expect(outcome.kind).toBe('claimed');
  return outcome.kind === 'claimed' ? outcome.token : '';
}

/**
 * The behaviour every {@link IdempotencyStore} shares, run against each implementation: example tests
 * for every rule and a model-based test (`fc.commands`) checking the store against a plain model.
 */
export function describeStoreContract(name: string, factory: StoreFactory, enabled = true): void {
  describe.skipIf(!enabled)(`the ${name} idempotency store`, () => {
    const clock = { t: 1_700_000_000_000 };
    let store: IdempotencyStore;
    let run = 0;
    // Every test (and every model run) uses keys of its own, so tests share one store safely.
    const keyFor = (label: string) => `contract-${process.pid}-${Date.now()}-${run}-${label}`;

    beforeAll(async () => {
      await factory.before?.();
      store = factory.make(() => clock.t);
    });
    afterAll(async () => {
      await factory.after?.();
    });

    describe('when a key is claimed for the first time', () => {
      it('grants the claim with a fencing token', async () => {
        run++;
        const outcome = await store.claim(keyFor('a'), 'fp', LEASE);
        expect(outcome.kind).toBe('claimed');
        if (outcome.kind === 'claimed') expect(outcome.token).not.toBe('');
      });

      it('answers in-progress to the same fingerprint and mismatch to another', async () => {
        run++;
        const key = keyFor('b');
        expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(await store.claim(key, 'fp', LEASE)).toEqual({ kind: 'in-progress' });
        expect(await store.claim(key, 'other', LEASE)).toEqual({ kind: 'mismatch' });
      });

      it('keeps keys independent', async () => {
        run++;
        expectClaimed(await store.claim(keyFor('c1'), 'fp', LEASE));
        expectClaimed(await store.claim(keyFor('c2'), 'fp', LEASE));
      });

      it('grants exactly one of many concurrent claims', async () => {
        run++;
        const key = keyFor('race');
        const outcomes = await Promise.all(Array.from({ length: 25 }, () => store.claim(key, 'fp', LEASE)));
        expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
        expect(outcomes.filter((o) => o.kind === 'in-progress')).toHaveLength(24);
      });
    });

    describe('when the owner completes', () => {
      it('replays the stored status, headers and every byte of the body', async () => {
        run++;
        const key = keyFor('d');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        const bytes = new Uint8Array(256).map((_, i) => i);
        const stored: StoredResponse = {
          status: 201,
          headers: { location: '/orders/1', 'content-type': 'application/vnd.api+json' },
          body: bytes,
        };
        expect(await store.complete(key, token, stored, RETENTION)).toBe(true);
        const replay = await store.claim(key, 'fp', LEASE);
        expect(replay.kind).toBe('completed');
        if (replay.kind === 'completed') {
          expect(replay.response.status).toBe(201);
          expect(replay.response.headers).toEqual(stored.headers);
          expect(Buffer.from(replay.response.body).equals(Buffer.from(bytes))).toBe(true);
        }
        expect(await store.claim(key, 'other', LEASE)).toEqual({ kind: 'mismatch' });
      });

      it('stores an empty body as empty', async () => {
        run++;
        const key = keyFor('empty');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(await store.complete(key, token, response(204, ''), RETENTION)).toBe(true);
        const replay = await store.claim(key, 'fp', LEASE);
        expect(replay.kind === 'completed' && replay.response.body.byteLength).toBe(0);
      });

      it('refuses a second completion, a renewal and a release of the completed record', async () => {
        run++;
        const key = keyFor('e');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(await store.complete(key, token, response(200, 'one'), RETENTION)).toBe(true);
        expect(await store.complete(key, token, response(200, 'two'), RETENTION)).toBe(false);
        expect(await store.renew(key, token, LEASE)).toBe(false);
        expect(await store.release(key, token)).toBe(false);
      });

      it('forgets the record once the retention has passed', async () => {
        run++;
        const key = keyFor('f');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        await store.complete(key, token, response(200, 'x'), RETENTION);
        clock.t += RETENTION - 1;
        expect((await store.claim(key, 'fp', LEASE)).kind).toBe('completed');
        clock.t += 1;
        expectClaimed(await store.claim(key, 'other', LEASE));
      });
    });

    describe('when a token is not the current owner', () => {
      it('refuses completion with an unknown token', async () => {
        run++;
        const key = keyFor('g');
        expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(await store.complete(key, 'not-a-token', response(200, 'x'), RETENTION)).toBe(false);
        expect(await store.claim(key, 'fp', LEASE)).toEqual({ kind: 'in-progress' });
      });

      it('lets a new owner take over after the lease and fences the old one', async () => {
        run++;
        const key = keyFor('h');
        const stale = expectClaimed(await store.claim(key, 'fp', LEASE));
        clock.t += LEASE;
        const fresh = expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(fresh).not.toBe(stale);
        expect(await store.complete(key, stale, response(200, 'late'), RETENTION)).toBe(false);
        expect(await store.renew(key, stale, LEASE)).toBe(false);
        expect(await store.release(key, stale)).toBe(false);
        expect(await store.complete(key, fresh, response(201, 'new'), RETENTION)).toBe(true);
        const replay = await store.claim(key, 'fp', LEASE);
        expect(replay.kind === 'completed' && Buffer.from(replay.response.body).toString()).toBe('new');
      });

      it('lets an expired claim be taken over by another fingerprint', async () => {
        run++;
        const key = keyFor('i');
        expectClaimed(await store.claim(key, 'fp', LEASE));
        clock.t += LEASE;
        expectClaimed(await store.claim(key, 'other', LEASE));
      });
    });

    describe('when the owner renews or releases', () => {
      it('keeps the claim alive past the first lease', async () => {
        run++;
        const key = keyFor('j');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        clock.t += LEASE - 1;
        expect(await store.renew(key, token, LEASE)).toBe(true);
        clock.t += LEASE - 1;
        expect(await store.claim(key, 'fp', LEASE)).toEqual({ kind: 'in-progress' });
        expect(await store.complete(key, token, response(200, 'x'), RETENTION)).toBe(true);
      });

      it('cannot renew or complete once the lease ran out', async () => {
        run++;
        const key = keyFor('k');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        clock.t += LEASE;
        expect(await store.renew(key, token, LEASE)).toBe(false);
        expect(await store.complete(key, token, response(200, 'x'), RETENTION)).toBe(false);
      });

      it('frees the key on release', async () => {
        run++;
        const key = keyFor('l');
        const token = expectClaimed(await store.claim(key, 'fp', LEASE));
        expect(await store.release(key, token)).toBe(true);
        expect(await store.release(key, token)).toBe(false);
        expectClaimed(await store.claim(key, 'other', LEASE));
      });
    });

    describe.skipIf(factory.makeLimited === undefined)('when its budgets are full', () => {
      const limits = { maxEntries: 4, maxBytes: 1_000_000, ownerMaxEntries: 2, ownerMaxBytes: 4_096 };
      const limited = () =>
        (factory.makeLimited as NonNullable<StoreFactory['makeLimited']>)(() => clock.t, limits);

      it("refuses an owner's claim past its quota and keeps its records, while others still claim", async () => {
        const store = await limited();
        const a1 = expectClaimed(await store.claim('a1', 'fp', LEASE, 'alice'));
        expectClaimed(await store.claim('a2', 'fp', LEASE, 'alice'));
        const refused = await store.claim('a3', 'fp', LEASE, 'alice');
        expect(refused.kind === 'full' && refused.scope).toBe('owner');
        expect(refused.kind === 'full' && refused.retryAfterMs).toBeGreaterThanOrEqual(1);
        expectClaimed(await store.claim('b1', 'fp', LEASE, 'bob'));
        expect(await store.claim('a1', 'fp', LEASE, 'alice')).toEqual({ kind: 'in-progress' });
        // Completing and releasing keep working for claims already granted; a release frees room.
        expect(await store.release('a1', a1)).toBe(true);
        expectClaimed(await store.claim('a3', 'fp', LEASE, 'alice'));
      });

      it.skipIf(factory.totalBudgets === false)(
        'refuses every new claim when the store is full and never drops a live record',
        async () => {
          const store = await limited();
          const tokens = new Map<string, string>();
          for (const [key, owner] of [
            ['c1', 'carol'],
            ['d1', 'dave'],
            ['e1', 'erin'],
            ['f1', 'frank'],
          ]) {
            tokens.set(key as string, expectClaimed(await store.claim(key as string, 'fp', LEASE, owner)));
          }
          expect(
            await store.complete('c1', tokens.get('c1') as string, response(201, 'one'), RETENTION),
          ).toBe(true);
          for (let i = 0; i < 20; i++) {
            const refused = await store.claim(`g${i}`, 'fp', LEASE, `owner-${i}`);
            expect(refused.kind === 'full' && refused.scope).toBe('store');
          }
          const replay = await store.claim('c1', 'fp', LEASE, 'carol');
          expect(replay.kind === 'completed' && Buffer.from(replay.response.body).toString()).toBe('one');
          expect(await store.claim('d1', 'fp', LEASE, 'dave')).toEqual({ kind: 'in-progress' });
        },
      );

      it('reclaims expired records before refusing', async () => {
        const store = await limited();
        const token = expectClaimed(await store.claim('h1', 'fp', LEASE, 'heidi'));
        await store.complete('h1', token, response(404, 'gone'), 10);
        expectClaimed(await store.claim('h2', 'fp', LEASE, 'heidi'));
        expect((await store.claim('h3', 'fp', LEASE, 'heidi')).kind).toBe('full');
        clock.t += 10;
        expectClaimed(await store.claim('h3', 'fp', LEASE, 'heidi'));
      });

      it("keeps a response whole while its owner's bytes leave room for its later claims, else brief", async () => {
        const store = await limited();
        const headers = { location: '/orders/1', etag: '"7"', 'content-type': 'application/json' };
        const i1 = expectClaimed(await store.claim('i1', 'fp', LEASE, 'ivan'));
        expect(await store.complete('i1', i1, response(201, 'x'.repeat(3_000), headers), RETENTION)).toBe(
          true,
        );
        const whole = await store.claim('i1', 'fp', LEASE, 'ivan');
        expect(whole.kind === 'completed' && whole.response.body.byteLength).toBe(3_000);
        // 4 096 bytes an owner: a second 3 000-byte answer does not fit, and is kept brief, never dropped.
        const i2 = expectClaimed(await store.claim('i2', 'fp', LEASE, 'ivan'));
        expect(await store.complete('i2', i2, response(201, 'y'.repeat(3_000), headers), RETENTION)).toBe(
          true,
        );
        expect(await store.claim('i2', 'fp', LEASE, 'ivan')).toEqual({
          kind: 'completed',
          response: {
            status: 201,
            headers: { 'idempotent-content-omitted': 'true', location: '/orders/1', etag: '"7"' },
            body: new Uint8Array(0),
          },
        });
        expect(await store.claim('i2', 'other', LEASE, 'ivan')).toEqual({ kind: 'mismatch' });
      });

      it("says when the owner's own records leave room, to the millisecond", async () => {
        const store = await limited();
        const k1 = expectClaimed(await store.claim('k1', 'fp', LEASE, 'kate'));
        await store.complete('k1', k1, response(201, 'one'), RETENTION);
        clock.t += 7;
        expectClaimed(await store.claim('k2', 'fp', LEASE, 'kate'));
        // Other owners' records, older than kate's, change nothing in her answer.
        expectClaimed(await store.claim('l1', 'fp', LEASE, 'leo'));
        const refused = await store.claim('k3', 'fp', LEASE, 'kate');
        // k2's lease ends first (a request still running counts until its lease ends).
        expect(refused).toEqual({ kind: 'full', scope: 'owner', retryAfterMs: LEASE });
        clock.t += LEASE - 1;
        expect((await store.claim('k3', 'fp', LEASE, 'kate')).kind).toBe('full');
        clock.t += 1;
        expectClaimed(await store.claim('k3', 'fp', LEASE, 'kate'));
      });

      it("says no wait helps when the claim alone is over the owner's byte budget", async () => {
        const store = await limited();
        expect(await store.claim(`m-${'k'.repeat(5_000)}`, 'fp', LEASE, 'mia')).toEqual({
          kind: 'full',
          scope: 'owner',
        });
      });

      it('takes every claim an owner may make, whatever the size of its answers', async () => {
        const store = await (factory.makeLimited as NonNullable<StoreFactory['makeLimited']>)(() => clock.t, {
          ownerMaxEntries: 50,
          ownerMaxBytes: 64 * 1024,
        });
        for (let i = 0; i < 50; i++) {
          const token = expectClaimed(await store.claim(`n${i}`, 'fp', LEASE, 'nina'));
          const body = 'z'.repeat(i % 3 === 0 ? 12_000 : 300);
          expect(await store.complete(`n${i}`, token, response(201, body), RETENTION)).toBe(true);
        }
        expect((await store.claim('n50', 'fp', LEASE, 'nina')).kind).toBe('full');
      });

      it('takes every claim an owner may make when its answers complete side by side', async () => {
        const store = await (factory.makeLimited as NonNullable<StoreFactory['makeLimited']>)(() => clock.t, {
          ownerMaxEntries: 3,
          ownerMaxBytes: 5_000,
        });
        const s1 = expectClaimed(await store.claim('s1', 'fp', LEASE, 'sam'));
        const s2 = expectClaimed(await store.claim('s2', 'fp', LEASE, 'sam'));
        // Room for one 3 000-byte answer beside the claim still to come: whichever completes second
        // sees the first one's and is kept brief, so the third claim still fits.
        const completions = await Promise.all([
          store.complete('s1', s1, response(201, 'x'.repeat(3_000)), RETENTION),
          store.complete('s2', s2, response(201, 'y'.repeat(3_000)), RETENTION),
        ]);
        expect(completions).toEqual([true, true]);
        expectClaimed(await store.claim('s3', 'fp', LEASE, 'sam'));
        const replays = await Promise.all(['s1', 's2'].map((key) => store.claim(key, 'fp', LEASE, 'sam')));
        const kept = replays.map((r) => (r.kind === 'completed' ? r.response.body.byteLength : -1));
        expect(kept.sort((a, b) => a - b)).toEqual([0, 3_000]);
      });

      describe('when any owners hold any records', () => {
        it("a refusal's wait is enough, and no other owner's records change it", async () => {
          await fc.assert(
            fc.asyncProperty(budgetSteps, async (steps) => {
              // The caller's records in one store, the same records beside other owners' in another
              // (whose total, where it has one, is no limit here).
              const make = factory.makeLimited as NonNullable<StoreFactory['makeLimited']>;
              const roomy = { ...limits, maxEntries: 1_000, maxBytes: 10_000_000 };
              const alone = await make(() => clock.t, roomy);
              const shared = await make(() => clock.t, roomy);
              const start = clock.t;
              for (const [i, step] of steps.entries()) {
                clock.t += step.advance;
                await apply(shared, step, i);
                if (step.owner === 'x') await apply(alone, step, i);
              }
              const mine = await alone.claim('x-new', 'fp', LEASE, 'x');
              const theirs = await shared.claim('x-new', 'fp', LEASE, 'x');
              const answer = ({ token: _, ...outcome }: ClaimOutcome & { token?: string }) => outcome;
              expect(answer(theirs)).toEqual(answer(mine));
              if (theirs.kind === 'full') {
                expect(theirs.scope).toBe('owner');
                expect(theirs.retryAfterMs).toBeGreaterThan(0);
                clock.t += (theirs.retryAfterMs ?? 0) - 1;
                expect((await shared.claim('x-new', 'fp', LEASE, 'x')).kind).toBe('full');
                clock.t += 1;
                expectClaimed(await shared.claim('x-new', 'fp', LEASE, 'x'));
              }
              clock.t = start + 10 * RETENTION;
            }),
            { numRuns: 25 },
          );
        }, 60_000);
      });
    });

    describe('when driven by any sequence of operations', () => {
      it('behaves like the model', async () => {
        await fc.assert(
          fc.asyncProperty(storeCommands, async (commands) => {
            run++;
            const prefix = keyFor('model');
            const setup = () => ({
              model: { now: clock.t, records: new Map<number, ModelRecord>(), tokens: 0 },
              real: { store, clock, tokens: [] as string[], key: (k: number) => `${prefix}-${k}` },
            });
            await fc.asyncModelRun(setup, commands);
          }),
          { numRuns: 60 },
        );
      });
    });
  });
}

interface ModelRecord {
  fingerprint: string;
  token: number;
  expiresAt: number;
  response: StoredResponse | undefined;
}
interface Model {
  now: number;
  records: Map<number, ModelRecord>;
  tokens: number;
}
interface Real {
  store: IdempotencyStore;
  clock: { t: number };
  tokens: string[];
  key: (index: number) => string;
}
type StoreCommand = fc.AsyncCommand<Model, Real>;

function liveRecord(model: Model, key: number): ModelRecord | undefined {
  const record = model.records.get(key);
  if (record === undefined || record.expiresAt <= model.now) return undefined;
  return record;
}

/** The record `token` (an index into issued tokens; out of range means a token never issued) owns. */
function ownedRecord(model: Model, key: number, token: number): ModelRecord | undefined {
  const record = liveRecord(model, key);
  return record !== undefined && record.response === undefined && record.token === token ? record : undefined;
}

function tokenOf(real: Real, pick: number): [index: number, token: string] {
  const index = pick % (real.tokens.length + 1);
  return [index, real.tokens[index] ?? 'never-issued'];
}

class Claim implements StoreCommand {
  constructor(
    readonly key: number,
    readonly fingerprint: string,
    readonly leaseMs: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const outcome = await real.store.claim(real.key(this.key), this.fingerprint, this.leaseMs);
    const record = liveRecord(model, this.key);
    if (record === undefined) {
      expect(outcome.kind).toBe('claimed');
      if (outcome.kind === 'claimed') real.tokens.push(outcome.token);
      model.records.set(this.key, {
        fingerprint: this.fingerprint,
        token: model.tokens++,
        expiresAt: model.now + this.leaseMs,
        response: undefined,
      });
    } else if (record.fingerprint !== this.fingerprint) {
      expect(outcome).toEqual({ kind: 'mismatch' });
    } else if (record.response === undefined) {
      expect(outcome).toEqual({ kind: 'in-progress' });
    } else {
      expect(outcome.kind).toBe('completed');
      if (outcome.kind === 'completed') {
        expect(outcome.response.status).toBe(record.response.status);
        expect(outcome.response.headers).toEqual(record.response.headers);
        expect(Buffer.from(outcome.response.body).equals(Buffer.from(record.response.body))).toBe(true);
      }
    }
  }
  toString = () => `claim(k${this.key}, ${this.fingerprint}, ${this.leaseMs})`;
}

class Complete implements StoreCommand {
  constructor(
    readonly key: number,
    readonly tokenPick: number,
    readonly response: StoredResponse,
    readonly retentionMs: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const [index, token] = tokenOf(real, this.tokenPick);
    const ok = await real.store.complete(real.key(this.key), token, this.response, this.retentionMs);
    const record = ownedRecord(model, this.key, index);
    expect(ok).toBe(record !== undefined);
    if (record !== undefined) {
      record.response = this.response;
      record.expiresAt = model.now + this.retentionMs;
    }
  }
  toString = () => `complete(k${this.key}, t${this.tokenPick}, ${this.response.status}, ${this.retentionMs})`;
}

class Renew implements StoreCommand {
  constructor(
    readonly key: number,
    readonly tokenPick: number,
    readonly leaseMs: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const [index, token] = tokenOf(real, this.tokenPick);
    const ok = await real.store.renew(real.key(this.key), token, this.leaseMs);
    const record = ownedRecord(model, this.key, index);
    expect(ok).toBe(record !== undefined);
    if (record !== undefined) record.expiresAt = model.now + this.leaseMs;
  }
  toString = () => `renew(k${this.key}, t${this.tokenPick}, ${this.leaseMs})`;
}

class Release implements StoreCommand {
  constructor(
    readonly key: number,
    readonly tokenPick: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const [index, token] = tokenOf(real, this.tokenPick);
    const ok = await real.store.release(real.key(this.key), token);
    const record = ownedRecord(model, this.key, index);
    expect(ok).toBe(record !== undefined);
    if (record !== undefined) model.records.delete(this.key);
  }
  toString = () => `release(k${this.key}, t${this.tokenPick})`;
}

class Advance implements StoreCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    model.now += this.ms;
    real.clock.t += this.ms;
  }
  toString = () => `advance(${this.ms})`;
}

const keyArb = fc.integer({ min: 0, max: 2 });
// Few distinct durations, so clock advances land exactly on lease and retention boundaries.
const leaseArb = fc.constantFrom(10, 20, 50);
const retentionArb = fc.constantFrom(10, 30, 60);
const advanceArb = fc.constantFrom(0, 1, 9, 10, 20, 30);
const tokenArb = fc.nat({ max: 8 });
const responseArb = fc.record({
  status: fc.constantFrom(200, 201, 204, 404, 422),
  headers: fc.dictionary(fc.constantFrom('location', 'etag', 'content-type'), fc.string({ maxLength: 20 })),
  body: fc.uint8Array({ maxLength: 64 }),
});

const storeCommands = fc.commands(
  [
    fc
      .tuple(keyArb, fc.constantFrom('fp-a', 'fp-b'), leaseArb)
      .map(([k, fp, lease]) => new Claim(k, fp, lease)),
    fc
      .tuple(keyArb, tokenArb, responseArb, retentionArb)
      .map(([k, t, r, retention]) => new Complete(k, t, r, retention)),
    fc.tuple(keyArb, tokenArb, leaseArb).map(([k, t, lease]) => new Renew(k, t, lease)),
    fc.tuple(keyArb, tokenArb).map(([k, t]) => new Release(k, t)),
    advanceArb.map((ms) => new Advance(ms)),
  ],
  { maxCommands: 40 },
);

/** One step of an owner in the budget property: a claim, maybe completed, after a pause. */
interface BudgetStep {
  readonly owner: 'x' | 'y' | 'z';
  readonly advance: number;
  readonly complete: boolean;
  readonly body: number;
  readonly retention: number;
}

// The caller (x) writes most: its quota fills, with records of every kind (running, completed with
// a short or a long retention, small or large answers), beside other owners' records.
const budgetSteps = fc.array(
  fc.record({
    owner: fc.constantFrom('x' as const, 'x' as const, 'y' as const, 'z' as const),
    advance: fc.constantFrom(0, 1, 7, 400),
    complete: fc.constantFrom(true, true, false),
    body: fc.constantFrom(0, 10, 900, 2_500),
    retention: fc.constantFrom(500, RETENTION),
  }),
  { minLength: 2, maxLength: 12 },
);

async function apply(store: IdempotencyStore, step: BudgetStep, i: number): Promise<void> {
  const key = `${step.owner}-${i}`;
  const outcome = await store.claim(key, 'fp', LEASE, step.owner);
  if (outcome.kind === 'claimed' && step.complete)
    await store.complete(key, outcome.token, response(201, 'b'.repeat(step.body)), step.retention);
}
