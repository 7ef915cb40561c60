/**
 * The RateLimit header fields, draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy` (section 3)
 * and `RateLimit` (section 4), both Structured Field Lists (RFC 9651), plus the older `X-RateLimit-*`
 * trio some clients still read.
 */
import type { PolicyDecision, RateLimitDecision } from './gcra.js';
import type { RateLimitPolicy } from './policy.js';

/** An RFC 9651 section 4.1.6 String: quoted, with `"` and `\` escaped (names are printable ASCII). */
function sfString(value: string): string {
  // Policy names are few and fixed: escape each once.
  let quoted = quotedNames.get(value);
  if (quoted === undefined) {
    quoted = `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    if (quotedNames.size < 1024) quotedNames.set(value, quoted);
  }
  return quoted;
}

const quotedNames = new Map<string, string>();

/**
 * The `RateLimit-Policy` field value: one Quota Policy Item per policy (draft-11 section 3.1).
 *
 * @example
 * formatRateLimitPolicy([{ name: 'burst', quota: 100, windowSeconds: 60 }]); // '"burst";q=100;w=60'
 */
export function formatRateLimitPolicy(policies: readonly RateLimitPolicy[]): string {
  return policies.map((p) => `${sfString(p.name)};q=${p.quota};w=${p.windowSeconds}`).join(', ');
}

/**
 * The `RateLimit` field value for one policy (draft-11 section 4.1): `r`, the available quota, and
 * `t`, the effective window within which the client can use no more than `r` (delay-seconds, so
 * client clock skew does not matter; see {@link PolicyDecision.resetSeconds} for its rounding).
 *
 * @example
 * formatRateLimit(decision); // '"burst";r=42;t=17'
 */
export function formatRateLimit(decision: PolicyDecision): string {
  return `${sfString(decision.policy.name)};r=${decision.remaining};t=${decision.resetSeconds}`;
}

/**
 * The policy that decides: for a refused request the refusing policy that frees up last (so
 * `Retry-After` equals its `t`); otherwise the one with the least remaining quota, the later `t`
 * breaking ties, then the order given.
 *
 * @example
 * tightestPolicy(decision).policy.name; // 'burst'
 */
export function tightestPolicy(decision: RateLimitDecision): PolicyDecision {
  // The usual case, one policy, without copying the list.
  if (decision.policies.length === 1) return decision.policies[0]!;
  const [first, ...rest] = decision.policies;
  if (first === undefined) throw new TypeError('tightestPolicy: a decision has at least one policy');
  if (!decision.allowed) {
    return rest.reduce(
      (a, b) => (!b.allowed && (a.allowed || b.retryAfterSeconds > a.retryAfterSeconds) ? b : a),
      first,
    );
  }
  return rest.reduce(
    (a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
    first,
  );
}

/**
 * The response headers for a decision (lower-case names): `RateLimit` for the tightest policy and the
 * precomputed `RateLimit-Policy` value; with `legacy`, also `X-RateLimit-Limit`, `-Remaining` and
 * `-Reset` (delta-seconds, like `t`) for the same policy.
 *
 * @example
 * rateLimitHeaders(decision, formatRateLimitPolicy(policies), false);
 * // { 'ratelimit-policy': '"burst";q=100;w=60', ratelimit: '"burst";r=99;t=1' }
 */
export function rateLimitHeaders(
  decision: RateLimitDecision,
  policyField: string,
  legacy: boolean,
): Record<string, string> {
  const tightest = tightestPolicy(decision);
  const headers: Record<string, string> = {
    'ratelimit-policy': policyField,
    ratelimit: formatRateLimit(tightest),
  };
  if (legacy) {
    headers['x-ratelimit-limit'] = String(tightest.policy.quota);
    headers['x-ratelimit-remaining'] = String(tightest.remaining);
    headers['x-ratelimit-reset'] = String(tightest.resetSeconds);
  }
  return headers;
}
