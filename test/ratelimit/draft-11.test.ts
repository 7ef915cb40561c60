/**
 * The RateLimit fields as draft-ietf-httpapi-ratelimit-headers-11 defines them: the draft's own
 * example field values parse, with an independent RFC 9651 parser, to the items the library writes
 * for the same values; `r` is the available quota and `t` the effective window (section 4.1), held
 * against a textbook GCRA written apart from the library's.
 */
import { fc, test } from '@fast-check/vitest';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import {
  formatRateLimit,
  formatRateLimitPolicy,
  type GcraState,
  gcraDecide,
  type PolicyDecision,
  type RateLimitPolicy,
} from '../../src/ratelimit/index.js';

const T0 = 1_760_000_000_000;

/** A field parsed by `structured-headers` into [item, params] pairs, byte sequences as base64. */
function parsed(field: string): [unknown, Record<string, unknown>][] {
  return parseList(field).map(([value, params]) => [
    value,
    Object.fromEntries(
      [...params].map(([k, v]) => [k, v instanceof ArrayBuffer ? Buffer.from(v).toString('base64') : v]),
    ),
  ]);
}

const decision = (name: string, remaining: number, resetSeconds: number): PolicyDecision => ({
  policy: { name, quota: 1, windowSeconds: 1 },
  allowed: true,
  remaining,
  resetSeconds,
  retryAfterSeconds: 0,
});

describe("the draft's RateLimit-Policy examples (section 3.2, appendix B)", () => {
  it.each([
    ['"default";q=100;w=10', [{ name: 'default', quota: 100, windowSeconds: 10 }]],
    [
      '"permin";q=50;w=60,"perhr";q=1000;w=3600',
      [
        { name: 'permin', quota: 50, windowSeconds: 60 },
        { name: 'perhr', quota: 1000, windowSeconds: 3600 },
      ],
    ],
    [
      '"hour";q=1000;w=3600, "day";q=5000;w=86400',
      [
        { name: 'hour', quota: 1000, windowSeconds: 3600 },
        { name: 'day', quota: 5000, windowSeconds: 86400 },
      ],
    ],
    ['"basic";q=100;w=60', [{ name: 'basic', quota: 100, windowSeconds: 60 }]],
  ] as [string, RateLimitPolicy[]][])('%s parses as the field the library writes', (example, policies) => {
    expect(parsed(formatRateLimitPolicy(policies))).toEqual(parsed(example));
  });

  it('with a partition key and a quota unit, parses to the same name, q and w (the library sends neither)', () => {
    const example = '"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:';
    const [[name, params]] = parsed(example) as [[string, Record<string, unknown>]];
    expect([name, params.q, params.w, params.qu]).toEqual(['peruser', 65535, 10, 'content-bytes']);
    expect(parsed(formatRateLimitPolicy([{ name: 'peruser', quota: 65535, windowSeconds: 10 }]))).toEqual([
      ['peruser', { q: 65535, w: 10 }],
    ]);
  });
});

describe("the draft's RateLimit examples (section 4.2, appendix B)", () => {
  it.each([
    ['"default";r=50;t=30', 'default', 50, 30],
    ['"default";r=0;t=50', 'default', 0, 50],
    ['"dayLimit";r=100;t=36000', 'dayLimit', 100, 36000],
    ['"basic";r=60;t=58', 'basic', 60, 58],
    ['"fixedwindow";r=99;t=50', 'fixedwindow', 99, 50],
    ['"dynamic";r=0;t=20', 'dynamic', 0, 20],
    ['"day";r=100;t=36000', 'day', 100, 36000],
  ] as const)(
    '%s: available quota r and effective window t, as the library writes them',
    (example, name, r, t) => {
      const field = formatRateLimit(decision(name, r, t));
      expect(field).toBe(example);
      expect(parsed(field)).toEqual([[name, { r, t }]]);
    },
  );

  it('a partition key parses aside r and t (the library sends none: its keys hold user ids and addresses)', () => {
    expect(parsed('"default";r=300000000;t=60;pk=:QXBwLTk5OQ==:')).toEqual([
      ['default', { r: 300000000, t: 60, pk: 'QXBwLTk5OQ==' }],
    ]);
  });
});

/**
 * A textbook GCRA (ITU-T I.371 virtual scheduling), independent of the library's debt arithmetic:
 * times are exact rationals, in ms scaled by `quota` (BigInt); `T = window / quota`, tolerance
 * `tau = window - T`; a request at `now` conforms when `now >= TAT - tau`, and then
 * `TAT = max(TAT, now) + T`.
 */
class TextbookGcra {
  private tat = 0n;
  private readonly emission: bigint;
  private readonly tolerance: bigint;
  private readonly scale: bigint;

  constructor(policy: RateLimitPolicy) {
    this.scale = BigInt(policy.quota);
    const windowScaled = BigInt(policy.windowSeconds * 1000) * this.scale; // w, in ms x quota
    this.emission = windowScaled / this.scale; // T = w / q, in ms x quota
    this.tolerance = windowScaled - this.emission;
  }

  /** Decide a request at `nowMs`; consumes when it conforms. */
  request(nowMs: number): boolean {
    const now = BigInt(nowMs) * this.scale;
    if (now < this.tat - this.tolerance) return false;
    this.tat = (this.tat > now ? this.tat : now) + this.emission;
    return true;
  }

  /** How many requests conform at `nowMs` back to back, without consuming them. */
  available(nowMs: number): number {
    const saved = this.tat;
    let count = 0;
    while (this.request(nowMs)) count++;
    this.tat = saved;
    return count;
  }

  /** Exact ms (as a fraction `scaled / quota`) from `nowMs` until one more request than `available` conforms. */
  untilMoreScaled(nowMs: number): bigint {
    const saved = this.tat;
    while (this.request(nowMs));
    const at = this.tat - this.tolerance;
    this.tat = saved;
    const now = BigInt(nowMs) * this.scale;
    return at > now ? at - now : 0n;
  }
}

const policyArb = fc.record({
  name: fc.constant('p'),
  quota: fc.integer({ min: 1, max: 50 }),
  windowSeconds: fc.integer({ min: 1, max: 600 }),
});
const arrivalsArb = fc
  .array(fc.integer({ min: 0, max: 120_000 }), { maxLength: 80 })
  .map((offsets) => offsets.sort((a, b) => a - b).map((o) => T0 + o));

describe('r and t against a textbook GCRA (draft-11 section 4.1)', () => {
  test.prop([policyArb, arrivalsArb])(
    'r is the available quota, and t the least whole seconds within which no more than r fit',
    (policy, arrivals) => {
      const model = new TextbookGcra(policy);
      let state: GcraState | undefined;
      for (const at of arrivals) {
        const d = gcraDecide(state, at, policy);
        expect(d.allowed).toBe(model.request(at));
        if (d.allowed) state = d.newState;
        expect(d.remaining).toBe(model.available(at));
        // The effective window: before `until` no more than r fit; at `until` one more does.
        const until = model.untilMoreScaled(at); // ms x quota
        const scale = BigInt(policy.quota) * 1000n;
        expect(BigInt(d.resetSeconds) * scale >= until).toBe(true); // keeping to r within t: never refused
        expect(BigInt(Math.max(d.resetSeconds - 1, 0)) * scale < until || until === 0n).toBe(true); // and t is least
        if (!d.allowed) expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(d.resetSeconds); // section 6
      }
    },
  );

  it('after a full burst of 100 per 60 s: r=0 and t=1, the 0.6 s until one more fits, rounded up', () => {
    const policy = { name: 'burst', quota: 100, windowSeconds: 60 };
    let state: GcraState | undefined;
    let last: PolicyDecision | undefined;
    for (let i = 0; i < 100; i++) {
      const d = gcraDecide(state, T0, policy);
      state = d.newState;
      last = d;
    }
    expect(formatRateLimit(last!)).toBe('"burst";r=0;t=1');
    expect(gcraDecide(state, T0 + 599, policy).allowed).toBe(false);
    expect(gcraDecide(state, T0 + 600, policy).allowed).toBe(true);
  });
});
