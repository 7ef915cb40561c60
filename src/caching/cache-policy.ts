/**
 * Cache-Control policies (RFC 9111 section 5.2.2; `stale-while-revalidate`: RFC 5861 section 3) from
 * small declarative options, validated once at start-up.
 */

import { mayAnswerNotModified } from './preconditions.js';

export interface CachePolicyOptions {
  /**
   * `public`: shared caches (CDNs, proxies) may store it; `private`: only the client's own cache
   * (RFC 9111 sections 5.2.2.6, 5.2.2.7). Default: neither (a shared cache decides by its rules).
   */
  readonly scope?: 'public' | 'private';
  /** `max-age=N`: fresh for N seconds (RFC 9111 section 5.2.2.1). */
  readonly maxAge?: number;
  /** `no-cache`: a cache may store it but must revalidate before each use (section 5.2.2.4). */
  readonly noCache?: boolean;
  /** `no-store`: no cache may store it (section 5.2.2.5). Excludes every other option. */
  readonly noStore?: boolean;
  /** `must-revalidate`: once stale, never served without a successful revalidation (section 5.2.2.2). */
  readonly mustRevalidate?: boolean;
  /** `stale-while-revalidate=N`: may be served stale for N seconds while revalidating (RFC 5861). */
  readonly staleWhileRevalidate?: number;
  /**
   * Keep `public` on responses to authenticated requests. By default such responses are always
   * `private` (public downgraded, private added), since a shared cache would otherwise hand one
   * caller's response to another.
   */
  readonly publicWhenAuthenticated?: boolean;
}

/** A validated policy: the `Cache-Control` value for anonymous and for authenticated requests. */
export interface CachePolicy {
  readonly anonymous: string;
  readonly authenticated: string;
}

const KNOWN = new Set<string>([
  'scope',
  'maxAge',
  'noCache',
  'noStore',
  'mustRevalidate',
  'staleWhileRevalidate',
  'publicWhenAuthenticated',
]);
// RFC 9111 section 1.2.2: delta-seconds larger than this are sent as this.
const MAX_DELTA_SECONDS = 2_147_483_648;

/**
 * Build a Cache-Control policy. Contradictions (`no-store` with anything, `stale-while-revalidate`
 * with `no-cache` or `must-revalidate`), unknown options and bad numbers throw a TypeError.
 *
 * @example
 * cachePolicy({ scope: 'public', maxAge: 60 }).anonymous   // 'public, max-age=60'
 * cachePolicy({ scope: 'public', maxAge: 60 }).authenticated // 'private, max-age=60'
 * cachePolicy({ scope: 'private', noCache: true }).anonymous // 'private, no-cache'
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2
 */
export function cachePolicy(options: CachePolicyOptions): CachePolicy {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('cachePolicy needs an options object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`Unknown cache policy option "${key}"`);
  }
  const { scope, maxAge, noCache, noStore, mustRevalidate, staleWhileRevalidate, publicWhenAuthenticated } =
    options;
  if (scope !== undefined && scope !== 'public' && scope !== 'private') {
    throw new TypeError(`scope must be 'public' or 'private', got ${JSON.stringify(scope)}`);
  }
  checkSeconds('maxAge', maxAge);
  checkSeconds('staleWhileRevalidate', staleWhileRevalidate);
  if (noStore === true) {
    const others = Object.entries(options).filter(([key, value]) => key !== 'noStore' && value !== undefined);
    if (others.length > 0) {
      throw new TypeError(
        `noStore excludes every other cache option (got ${others.map(([k]) => k).join(', ')})`,
      );
    }
    return { anonymous: 'no-store', authenticated: 'no-store' };
  }
  if (staleWhileRevalidate !== undefined) {
    if (maxAge === undefined) throw new TypeError('staleWhileRevalidate needs maxAge (a freshness lifetime)');
    if (noCache === true || mustRevalidate === true) {
      throw new TypeError(
        'staleWhileRevalidate contradicts noCache and mustRevalidate (both forbid serving stale)',
      );
    }
  }
  if (publicWhenAuthenticated === true && scope !== 'public') {
    throw new TypeError("publicWhenAuthenticated only makes sense with scope: 'public'");
  }
  const rest: string[] = [];
  if (noCache === true) rest.push('no-cache');
  if (maxAge !== undefined) rest.push(`max-age=${maxAge}`);
  if (mustRevalidate === true) rest.push('must-revalidate');
  if (staleWhileRevalidate !== undefined) rest.push(`stale-while-revalidate=${staleWhileRevalidate}`);
  if (scope === undefined && rest.length === 0) {
    throw new TypeError('A cache policy needs at least one of scope, maxAge, noCache, noStore');
  }
  const anonymous = [...(scope === undefined ? [] : [scope]), ...rest].join(', ');
  // RFC 9111 section 3.5: a shared cache may store a response to a request with Authorization when it
  // says public or must-revalidate; `private` keeps it out of shared caches in every case.
  const authenticatedScope = scope === 'public' && publicWhenAuthenticated === true ? 'public' : 'private';
  const authenticated = [authenticatedScope, ...rest].join(', ');
  return Object.freeze({ anonymous, authenticated });
}

function checkSeconds(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_DELTA_SECONDS) {
    throw new TypeError(
      `${name} must be a whole number of seconds from 0 to ${MAX_DELTA_SECONDS}, got ${value}`,
    );
  }
}

/**
 * Whether a cache policy belongs on an answer: a successful (2xx) answer to GET, HEAD or QUERY (RFC
 * 10008 section 2.7: cached under a key that includes the query content), or a 304,
 * which refreshes a stored one (RFC 9111 sections 3 and 4.3.4). Caches store other answers only when
 * told to, so a policy for the resource must not reach a POST's 201 or an error (which says
 * `no-store`, RFC 9110 section 15 and `docs/errors.md`).
 */
export function cachePolicyApplies(method: string, status: number): boolean {
  if (status === 304) return true;
  return mayAnswerNotModified(method) && status >= 200 && status < 300;
}

/**
 * Per-user data that may be kept only by the client's own cache and must be revalidated before each
 * reuse (`Cache-Control: private, no-cache`, RFC 9111 sections 5.2.2.4 and 5.2.2.7): the policy of
 * every owner-only resource.
 */
export const PRIVATE_REVALIDATED: CachePolicyOptions = Object.freeze({ scope: 'private', noCache: true });
