import { copyWith } from '../http/header-copy.js';
import type { ApiResponse } from '../http/types.js';
import type { StoredResponse } from './stores/store.js';

/**
 * Response headers stored and replayed by default: those that describe the stored representation or
 * the created resource, and what it varies on. `Set-Cookie` is never stored (a replay must not hand one client's session
 * to a retry); per-response headers such as `Date` and `X-Request-Id` are set afresh on the replay.
 */
export const DEFAULT_REPLAY_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
  'location',
  'etag',
  'last-modified',
  'link',
  'cache-control',
  // What the representation depends on (RFC 9110 section 12.5.5): a replay varies as its original.
  'vary',
]);

/**
 * Statuses never stored: 401 (the caller may authenticate and retry) and 429 (the caller should retry
 * later); storing either would replay a refusal that no longer applies.
 */
const NEVER_STORED_STATUSES: ReadonlySet<number> = new Set([401, 429]);

/** The header marking a replayed response (as Stripe sends it). */
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Whether a handler's response is stored under its key. 5xx are never stored (the claim is released
 * so the client can retry), nor 401 and 429; other 4xx are stored unless `storeClientErrors` is false;
 * 1xx-3xx always are.
 *
 * @example
 * shouldStore(201, true); // true
 * shouldStore(503, true); // false
 */
export function shouldStore(status: number, storeClientErrors: boolean): boolean {
  if (status >= 500 || NEVER_STORED_STATUSES.has(status)) return false;
  if (status >= 400) return storeClientErrors;
  return true;
}

/** The record to store: status, the allow-listed headers, the body bytes. */
export function toStoredResponse(
  response: Pick<ApiResponse, 'status' | 'headers'>,
  body: Uint8Array,
  replayHeaders: ReadonlySet<string>,
): StoredResponse {
  const headers: Record<string, string> = {};
  const given = response.headers;
  for (const name in given) {
    // Names are lower-case almost always: looked up as they are before lower-casing.
    if (replayHeaders.has(name)) headers[name] = given[name] as string;
    else {
      const lower = name.toLowerCase();
      if (lower !== name && replayHeaders.has(lower)) headers[lower] = given[name] as string;
    }
  }
  return { status: response.status, headers, body };
}

/** The replay of a stored response: the same status, headers and bytes, marked `Idempotent-Replayed: true`. */
export function replayOf(stored: StoredResponse): ApiResponse {
  const response: ApiResponse = {
    status: stored.status,
    headers: copyWith(stored.headers, REPLAYED_HEADER, 'true'),
  };
  if (stored.body.byteLength > 0) response.raw = stored.body;
  return response;
}

/**
 * The store key of an idempotency key: scoped by the principal's `sub`, so two callers' identical
 * keys never collide; anonymous callers share one scope of their own. Length-prefixed, so no
 * (sub, key) pair can spell another.
 *
 * @example
 * scopeKey('user-7', 'a1b2'); // 'sub:6:user-7:a1b2'
 */
export function scopeKey(sub: string | undefined, key: string): string {
  // Joined, not concatenated: V8 makes one flat string of a join, where `+` makes a tree of the
  // pieces that a store keeping the key would hold for as long as the record lives.
  return sub === undefined ? ['anonymous:', key].join('') : ['sub:', sub.length, ':', sub, ':', key].join('');
}
