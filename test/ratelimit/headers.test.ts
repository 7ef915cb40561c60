import { fc, test } from '@fast-check/vitest';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import {
  formatRateLimit,
  formatRateLimitPolicy,
  gcraDecideAll,
  type RateLimitPolicy,
  rateLimitHeaders,
  tightestPolicy,
} from '../../src/ratelimit/index.js';
import { validatePolicies } from '../../src/ratelimit/policy.js';

const T0 = 1_760_000_000_000;

/** Parse a field with an independent RFC 9651 parser into [name, params] pairs. */
function parsed(field: string): [unknown, Record<string, unknown>][] {
  return parseList(field).map((member) => {
    const [value, params] = member;
    return [value, Object.fromEntries(params)];
  });
}

describe('RateLimit-Policy (draft-11 section 3)', () => {
  it('lists every policy as a String item with q and w', () => {
    const field = formatRateLimitPolicy([
      { name: 'burst', quota: 100, windowSeconds: 60 },
      { name: 'daily', quota: 1000, windowSeconds: 86400 },
    ]);
    expect(field).toBe('"burst";q=100;w=60, "daily";q=1000;w=86400');
    expect(parsed(field)).toEqual([
      ['burst', { q: 100, w: 60 }],
      ['daily', { q: 1000, w: 86400 }],
    ]);
  });

  const nameArb = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
  });
  const policiesArb = fc.uniqueArray(
    fc.record({
      name: nameArb,
      quota: fc.integer({ min: 1, max: 1e6 }),
      windowSeconds: fc.integer({ min: 1, max: 86400 }),
    }),
    { minLength: 1, maxLength: 4, selector: (p) => p.name },
  );

  test.prop([policiesArb])(
    'parses back to the same names, quotas and windows, whatever the names hold',
    (policies) => {
      expect(parsed(formatRateLimitPolicy(validatePolicies(policies)))).toEqual(
        policies.map((p) => [p.name, { q: p.quota, w: p.windowSeconds }]),
      );
    },
  );
});

describe('RateLimit (draft-11 section 4)', () => {
  const policies: RateLimitPolicy[] = [
    { name: 'burst', quota: 3, windowSeconds: 60 },
    { name: 'daily', quota: 1000, windowSeconds: 86400 },
  ];

  it('names the tightest policy with r and t in delta-seconds', () => {
    const decision = gcraDecideAll([undefined, undefined], T0, policies);
    const field = formatRateLimit(tightestPolicy(decision));
    expect(field).toBe('"burst";r=2;t=20');
    expect(parsed(field)).toEqual([['burst', { r: 2, t: 20 }]]);
  });

  it('on refusal names the refusing policy, with t equal to the retry delay', () => {
    let decision = gcraDecideAll([undefined, undefined], T0, policies);
    for (let i = 0; i < 3; i++) decision = gcraDecideAll(decision.newStates, T0, policies);
    expect(decision.allowed).toBe(false);
    const headers = rateLimitHeaders(decision, formatRateLimitPolicy(policies), false);
    expect(parsed(headers.ratelimit!)).toEqual([['burst', { r: 0, t: decision.retryAfterSeconds }]]);
  });

  it('adds the legacy X-RateLimit trio only when asked', () => {
    const decision = gcraDecideAll([undefined, undefined], T0, policies);
    expect(Object.keys(rateLimitHeaders(decision, '', false)).sort()).toEqual([
      'ratelimit',
      'ratelimit-policy',
    ]);
    expect(rateLimitHeaders(decision, '', true)).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': '20',
    });
  });
});

describe('when choosing the tightest policy', () => {
  it('picks the least remaining quota, the later t breaking ties', () => {
    const ps: RateLimitPolicy[] = [
      { name: 'a', quota: 10, windowSeconds: 10 },
      { name: 'b', quota: 5, windowSeconds: 100 },
      { name: 'c', quota: 5, windowSeconds: 10 },
    ];
    const decision = gcraDecideAll([undefined, undefined, undefined], T0, ps);
    expect(tightestPolicy(decision).policy.name).toBe('b');
  });
});

describe('when a policy is misconfigured', () => {
  it.each([
    [[], 'non-empty'],
    [[{ name: '', quota: 1, windowSeconds: 1 }], 'name'],
    [[{ name: 'é', quota: 1, windowSeconds: 1 }], 'name'],
    [[{ name: 'a', quota: 0, windowSeconds: 1 }], 'quota'],
    [[{ name: 'a', quota: 1.5, windowSeconds: 1 }], 'quota'],
    [[{ name: 'a', quota: 1, windowSeconds: 0.5 }], 'windowSeconds'],
    [
      [
        { name: 'a', quota: 1, windowSeconds: 1 },
        { name: 'a', quota: 2, windowSeconds: 1 },
      ],
      'duplicate',
    ],
    [[{ name: 'a', quota: 1e12, windowSeconds: 86400 }], 'too large'],
  ])('throws a TypeError at start-up (%j)', (policies, message) => {
    expect(() => validatePolicies(policies)).toThrow(TypeError);
    expect(() => validatePolicies(policies)).toThrow(message);
  });
});
