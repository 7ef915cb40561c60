/**
 * The pure decision core of the ownership guard (see docs/ownership.md; OWASP API1:2023): plain facts in, the
 * next step out. It knows nothing about stores, requests or HTTP, so every ordering rule can be
 * property-tested on its own.
 */

/**
 * What loading one level of a nested path found. `foreign` (the record exists but belongs to another
 * parent) and `absent` lead to the same decision, so nothing downstream can tell them apart.
 */
export type LevelFact = 'present' | 'absent' | 'foreign';

/** Everything known so far about one request for a nested path. */
export interface OwnershipFacts {
  /** Levels in the path: `/users/{id}/orders/{order_id}` has 2. */
  readonly depth: number;
  /** Whether the request carries a principal. */
  readonly authenticated: boolean;
  /** The access rule's answer for the top-level parent; `undefined` until asked. */
  readonly mayAccessParent?: boolean;
  /** One fact per level loaded so far, outermost first. */
  readonly levels: readonly LevelFact[];
}

/** Why a request is refused, with the status each reason maps to. */
export const OWNERSHIP_DENIALS = Object.freeze({
  /** RFC 9110 section 15.5.2, with the RFC 6750 section 3 challenge. */
  unauthenticated: 401,
  /** RFC 9110 section 15.5.4: the caller may not access the parent at all. */
  forbidden: 403,
  /** RFC 9110 section 15.5.5: absent, or not a child of its parent (never said which). */
  'not-found': 404,
} as const);

export type DenialReason = keyof typeof OWNERSHIP_DENIALS;

/** The next step for a request, given the facts known so far. */
export type OwnershipStep =
  | { readonly kind: 'check-access' }
  | { readonly kind: 'load'; readonly level: number }
  | { readonly kind: 'deny'; readonly reason: 'unauthenticated'; readonly status: 401 }
  | { readonly kind: 'deny'; readonly reason: 'forbidden'; readonly status: 403 }
  | { readonly kind: 'deny'; readonly reason: 'not-found'; readonly status: 404; readonly level: number }
  | { readonly kind: 'allow' };

const CHECK_ACCESS: OwnershipStep = Object.freeze({ kind: 'check-access' });
const ALLOW: OwnershipStep = Object.freeze({ kind: 'allow' });
const UNAUTHENTICATED: OwnershipStep = Object.freeze({
  kind: 'deny',
  reason: 'unauthenticated',
  status: 401,
});
const FORBIDDEN: OwnershipStep = Object.freeze({ kind: 'deny', reason: 'forbidden', status: 403 });

/**
 * The next step of the ownership check, in the documented order: no principal → 401; no right to the
 * parent → 403 (decided before anything is loaded, so a forbidden caller learns nothing about which
 * ids exist); then each level, outermost first, must exist and (below the top) belong to the level
 * above it, else 404. A level is asked to be loaded only once the levels above it passed, and only
 * once: the caller appends its fact and asks again.
 *
 * @example
 * nextOwnershipStep({ depth: 2, authenticated: true, mayAccessParent: true, levels: ['present'] })
 * // → { kind: 'load', level: 1 }
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.5.4
 */
export function nextOwnershipStep(facts: OwnershipFacts): OwnershipStep {
  const { depth, levels } = facts;
  if (!Number.isInteger(depth) || depth < 1)
    throw new TypeError(`depth must be a positive integer, got ${depth}`);
  if (levels.length > depth) throw new TypeError(`${levels.length} level facts for a path of depth ${depth}`);
  if (!facts.authenticated) return UNAUTHENTICATED;
  if (facts.mayAccessParent === undefined) return CHECK_ACCESS;
  if (!facts.mayAccessParent) return FORBIDDEN;
  for (let level = 0; level < depth; level++) {
    const fact = levels[level];
    if (fact === undefined) return { kind: 'load', level };
    if (fact !== 'present') return { kind: 'deny', reason: 'not-found', status: 404, level };
  }
  return ALLOW;
}
