/**
 * A quota policy: `quota` requests per `windowSeconds`, identified by `name` in the
 * `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11, section 3.1).
 *
 * @example
 * const burst: RateLimitPolicy = { name: 'burst', quota: 100, windowSeconds: 60 };
 */
export interface RateLimitPolicy {
  /** The policy's identifier: a Structured Field String, printable ASCII. */
  readonly name: string;
  /** Requests allowed per window (`q`); a positive integer. */
  readonly quota: number;
  /** The window in whole seconds (`w`; the draft allows no sub-second precision). */
  readonly windowSeconds: number;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * Check a list of policies once, at start-up, and return a frozen copy.
 * Throws a `TypeError` naming the first problem.
 *
 * @example
 * validatePolicies([{ name: 'burst', quota: 100, windowSeconds: 60 }]);
 */
export function validatePolicies(policies: readonly RateLimitPolicy[]): readonly RateLimitPolicy[] {
  if (!Array.isArray(policies) || policies.length === 0) {
    throw new TypeError('rateLimit: policies must be a non-empty array');
  }
  const names = new Set<string>();
  const checked = policies.map((policy) => {
    const { name, quota, windowSeconds } = policy;
    if (typeof name !== 'string' || !PRINTABLE_ASCII.test(name)) {
      throw new TypeError(
        `rateLimit: policy name must be non-empty printable ASCII, got ${JSON.stringify(name)}`,
      );
    }
    if (names.has(name)) throw new TypeError(`rateLimit: duplicate policy name "${name}"`);
    names.add(name);
    if (!Number.isSafeInteger(quota) || quota < 1) {
      throw new TypeError(
        `rateLimit: policy "${name}" quota must be a positive integer, got ${String(quota)}`,
      );
    }
    if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
      throw new TypeError(
        `rateLimit: policy "${name}" windowSeconds must be a positive integer, got ${String(windowSeconds)}`,
      );
    }
    // The core counts in units of 1/quota ms (exact integers); window x quota must stay a safe integer.
    if (!Number.isSafeInteger(windowSeconds * 1000 * quota)) {
      throw new TypeError(`rateLimit: policy "${name}" quota x window is too large to count exactly`);
    }
    return Object.freeze({ name, quota, windowSeconds });
  });
  return Object.freeze(checked);
}

/**
 * The identity of a policy in a store: a changed quota or window starts a fresh bucket instead of
 * reinterpreting state counted in other units.
 */
export function policyStorageId(policy: RateLimitPolicy): string {
  // Policies are fixed objects read on every request: build each id once.
  let id = storageIds.get(policy);
  if (id === undefined) {
    id = `${policy.name}:${policy.quota}:${policy.windowSeconds}`;
    storageIds.set(policy, id);
  }
  return id;
}

const storageIds = new WeakMap<RateLimitPolicy, string>();
