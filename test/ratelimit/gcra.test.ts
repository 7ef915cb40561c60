import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { gcraDebt, gcraStateFromDebt } from '../../src/ratelimit/gcra.js';
import {
  type GcraState,
  gcraDecide,
  gcraDecideAll,
  type RateLimitPolicy,
} from '../../src/ratelimit/index.js';

const T0 = 1_760_000_000_000; // a realistic epoch in ms: the arithmetic must stay exact there

/** Run arrivals (ms, sorted) through one policy; returns which were allowed. */
function run(policy: RateLimitPolicy, arrivals: readonly number[]): boolean[] {
  let state: GcraState | undefined;
  return arrivals.map((at) => {
    const d = gcraDecide(state, at, policy);
    if (d.allowed) state = d.newState;
    return d.allowed;
  });
}

const policyArb = fc.record({
  name: fc.constant('p'),
  quota: fc.integer({ min: 1, max: 12 }),
  windowSeconds: fc.integer({ min: 1, max: 5 }),
});
const arrivalsArb = fc
  .array(fc.integer({ min: 0, max: 30_000 }), { maxLength: 120 })
  .map((offsets) => offsets.sort((a, b) => a - b).map((o) => T0 + o));

/** Keep an arrival only while at most `quota` kept ones fall in any window of `windowMs` (sliding). */
function withinQuota(arrivals: readonly number[], quota: number, windowMs: number): number[] {
  const kept: number[] = [];
  for (const at of arrivals) {
    const inWindow = kept.filter((k) => k > at - windowMs).length;
    if (inWindow < quota) kept.push(at);
  }
  return kept;
}

describe('when a client is new', () => {
  const policy = { name: 'burst', quota: 3, windowSeconds: 60 };

  it('admits the whole quota at once and counts remaining down to 0', () => {
    let state: GcraState | undefined;
    const remaining = [1, 2, 3].map(() => {
      const d = gcraDecide(state, T0, policy);
      expect(d.allowed).toBe(true);
      state = d.newState;
      return d.remaining;
    });
    expect(remaining).toEqual([2, 1, 0]);
  });

  it('reports t as the seconds until one more request fits (window / quota)', () => {
    const d = gcraDecide(undefined, T0, policy);
    expect(d.resetSeconds).toBe(20);
    expect(d.retryAfterSeconds).toBe(0);
  });
});

describe('when the quota is used up', () => {
  const policy = { name: 'burst', quota: 3, windowSeconds: 60 };
  // Made in each test, not while the suite is collected: a fault in gcraDecide fails the tests.
  const usedUp = () =>
    [0, 1, 2].reduce<GcraState | undefined>((s) => gcraDecide(s, T0, policy).newState, undefined);

  it('refuses with r=0 and Retry-After equal to t', () => {
    const d = gcraDecide(usedUp(), T0 + 5_000, policy);
    expect(d).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 15, resetSeconds: 15 });
  });

  it('leaves the state unchanged on refusal', () => {
    const used = usedUp();
    expect(gcraDecide(used, T0 + 5_000, policy).newState).toEqual(used);
  });

  it('admits one request again after window / quota, and the full quota after the window', () => {
    expect(gcraDecide(usedUp(), T0 + 19_999, policy).allowed).toBe(false);
    expect(gcraDecide(usedUp(), T0 + 20_000, policy).allowed).toBe(true);
    expect(run(policy, [T0, T0, T0, T0 + 60_000, T0 + 60_000, T0 + 60_000, T0 + 60_000])).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('when the window is not a multiple of the quota', () => {
  it('counts exactly, without rounding drift (7 per second: one every 142.857 ms)', () => {
    const policy = { name: 'p', quota: 7, windowSeconds: 1 };
    // After a burst of 7 the 8th request fits exactly at 1000/7 ms: 142 ms is too early, 143 is not.
    const burst = Array<number>(7).fill(T0);
    expect(run(policy, [...burst, T0 + 142])).toEqual([...Array<boolean>(7).fill(true), false]);
    expect(run(policy, [...burst, T0 + 143])).toEqual(Array<boolean>(8).fill(true));
    // 7 more spaced 1000/7 ms apart: the 7th lands at exactly 1000 ms.
    const spaced = [1, 2, 3, 4, 5, 6, 7].map((i) => T0 + Math.ceil((i * 1000) / 7));
    expect(run(policy, [...burst, ...spaced]).every(Boolean)).toBe(true);
  });
});

describe('when several policies apply (burst and sustained)', () => {
  const burst = { name: 'burst', quota: 2, windowSeconds: 1 };
  const hourly = { name: 'hourly', quota: 5, windowSeconds: 3600 };

  it('a request refused by one policy consumes no quota from the others', () => {
    let states: readonly (GcraState | undefined)[] = [undefined, undefined];
    const step = (at: number) => {
      const d = gcraDecideAll(states, at, [burst, hourly]);
      if (d.allowed) states = d.newStates;
      return d;
    };
    step(T0);
    step(T0);
    const refused = step(T0);
    expect(refused.allowed).toBe(false);
    expect(refused.policies.map((p) => [p.policy.name, p.allowed, p.remaining])).toEqual([
      ['burst', false, 0],
      ['hourly', true, 3],
    ]);
    // Ten refused attempts later the hourly quota is still 3.
    for (let i = 0; i < 10; i++) step(T0 + 10);
    expect(step(T0 + 1000).policies[1]!.remaining).toBe(2);
  });

  it('the request waits for the slowest refusing policy', () => {
    const tight = [
      { name: 'a', quota: 1, windowSeconds: 10 },
      { name: 'b', quota: 1, windowSeconds: 30 },
    ];
    const first = gcraDecideAll([undefined, undefined], T0, tight);
    const second = gcraDecideAll(first.newStates, T0, tight);
    expect(second.retryAfterSeconds).toBe(30);
    expect(gcraDecideAll(first.newStates, T0 + 29_999, tight).allowed).toBe(false);
    expect(gcraDecideAll(first.newStates, T0 + 30_000, tight).allowed).toBe(true);
  });
});

describe('for any arrival sequence (fake clock)', () => {
  test.prop([policyArb, arrivalsArb])(
    'never admits more than quota + quota x span / window over any span: at most quota at one instant (no double burst)',
    (policy, arrivals) => {
      const windowMs = policy.windowSeconds * 1000;
      const verdicts = run(policy, arrivals);
      const allowed = arrivals.filter((_, i) => verdicts[i]);
      let worst = { count: 0, bound: 0 };
      for (let i = 0; i < allowed.length; i++) {
        for (let j = i; j < allowed.length; j++) {
          const count = j - i + 1;
          const bound = policy.quota + Math.floor(((allowed[j]! - allowed[i]!) * policy.quota) / windowMs);
          if (count - bound > worst.count - worst.bound) worst = { count, bound };
        }
      }
      expect(worst.count).toBeLessThanOrEqual(worst.bound);
    },
  );

  test.prop([policyArb, arrivalsArb])(
    'never refuses a client within its quota (no false 429)',
    (policy, arrivals) => {
      const windowMs = policy.windowSeconds * 1000;
      const compliant = withinQuota(arrivals, policy.quota, windowMs);
      expect(run(policy, compliant).every(Boolean)).toBe(true);
    },
  );

  test.prop([policyArb, arrivalsArb, fc.integer({ min: 0, max: 30_000 })])(
    'r is exact: r more requests now succeed and the next one is refused',
    (policy, arrivals, probeOffset) => {
      let state: GcraState | undefined;
      for (const at of arrivals) {
        const d = gcraDecide(state, at, policy);
        if (d.allowed) state = d.newState;
      }
      const now = Math.max(T0 + probeOffset, ...arrivals);
      const probe = gcraDecide(state, now, policy);
      if (!probe.allowed) {
        expect(probe.remaining).toBe(0);
        return;
      }
      state = probe.newState;
      for (let i = 0; i < probe.remaining; i++) {
        const d = gcraDecide(state, now, policy);
        expect(d.allowed).toBe(true);
        state = d.newState;
      }
      expect(gcraDecide(state, now, policy).allowed).toBe(false);
    },
  );

  test.prop([policyArb, arrivalsArb])(
    'a refused client is admitted once Retry-After seconds have passed, and t equals Retry-After',
    (policy, arrivals) => {
      let state: GcraState | undefined;
      for (const at of arrivals) {
        const d = gcraDecide(state, at, policy);
        if (d.allowed) {
          state = d.newState;
          continue;
        }
        expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(d.resetSeconds).toBe(d.retryAfterSeconds);
        expect(gcraDecide(state, at + d.retryAfterSeconds * 1000, policy).allowed).toBe(true);
      }
    },
  );
});

describe('the debt a state stands for (ticks: ms x quota)', () => {
  const policy = { name: 'p', quota: 7, windowSeconds: 1 };

  it('is 0 for a client never seen or whose TAT has passed, and at most one window', () => {
    expect(gcraDebt(undefined, T0, policy)).toBe(0);
    expect(gcraDebt({ tatMs: T0 - 1, tatFraction: 0 }, T0, policy)).toBe(0);
    expect(gcraDebt({ tatMs: T0, tatFraction: 3 }, T0, policy)).toBe(3);
    expect(gcraDebt({ tatMs: T0 + 10, tatFraction: 1 }, T0, policy)).toBe(71);
    // A clock that stepped back a day still owes one window (1000 ms x 7) at most.
    expect(gcraDebt({ tatMs: T0 + 86_400_000, tatFraction: 0 }, T0, policy)).toBe(7000);
  });

  test.prop([fc.nat({ max: 7000 }), fc.integer({ min: 1, max: 1000 })])(
    'is stored as a normalized state (0 <= fraction < quota) that stands for the same debt',
    (debt, quota) => {
      const p = { name: 'p', quota, windowSeconds: 1 };
      const state = gcraStateFromDebt(debt, T0, p);
      expect(state.tatFraction).toBeGreaterThanOrEqual(0);
      expect(state.tatFraction).toBeLessThan(quota);
      expect((state.tatMs - T0) * quota + state.tatFraction).toBe(debt);
    },
  );

  it('one policy and a list of one decide alike, from the same state', () => {
    const one = { name: 'p', quota: 2, windowSeconds: 10 };
    const state = { tatMs: T0 + 4_000, tatFraction: 1 };
    const single = gcraDecide(state, T0, one);
    const listed = gcraDecideAll([state, undefined], T0, [
      one,
      { name: 'wide', quota: 1000, windowSeconds: 1 },
    ]);
    expect(listed.policies[0]).toEqual({
      policy: one,
      allowed: single.allowed,
      remaining: single.remaining,
      resetSeconds: single.resetSeconds,
      retryAfterSeconds: single.retryAfterSeconds,
    });
    expect(listed.newStates[0]).toEqual(single.newState);
    expect(single).toEqual({
      policy: one,
      allowed: true,
      remaining: 0,
      resetSeconds: 5,
      retryAfterSeconds: 0,
      newState: { tatMs: T0 + 9_000, tatFraction: 1 },
    });
  });
});
