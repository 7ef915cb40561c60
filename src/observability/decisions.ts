/**
 * What the conventions decided for one request, read back from what the request ended with: the
 * final response (status, headers, error document) and the values layers left in `ctx.var`. Pure:
 * it imports no telemetry library, so the same facts can feed any exporter (docs/observability.md).
 *
 * Every fact comes from the wire contract the conventions already document, not from their
 * internals: `Idempotent-Replayed` (docs/idempotency.md), the `RateLimit` field (draft-ietf-httpapi-
 * ratelimit-headers), `Deprecation` (RFC 9745), `Cache-Control` (RFC 9111 section 5.2), 304/412/428
 * (RFC 9110 section 13, RFC 6585 section 3) and the error codes of docs/errors.md.
 */

import { ERROR_CODES, type ErrorCodeEntry, isErrorCode } from '../errors/codes.js';
import { parseItemList } from '../http/structured-fields.js';

/** How a keyed write ended, as its answer tells (docs/idempotency.md). */
export type IdempotencyOutcome =
  /** The stored answer of an earlier request with this key (`Idempotent-Replayed: true`). */
  | 'replayed'
  /** 409: a request with this key is still running (`idempotency-request-in-progress`). */
  | 'conflict'
  /** 422: the key was used with another request (`idempotency-key-reused`). */
  | 'mismatch'
  /** 400: the key is missing where required, or not a valid key. */
  | 'refused'
  /** 503/429: the store failed, was full, or the caller is at their record quota. */
  | 'unavailable';

/** A conditional request's outcome (RFC 9110 section 13.2.2), when it was not simply served. */
export type PreconditionOutcome =
  /** 304: the client's copy is current. */
  | 'not-modified'
  /** 412: `If-Match` or a date precondition failed. */
  | 'failed'
  /** 428: a write without `If-Match` (RFC 6585 section 3). */
  | 'required';

/** The rate limiter's decision, when it ran (its `RateLimit` field or its error codes say so). */
export type RateLimitOutcome = 'allowed' | 'refused' | 'unavailable';

/** Who the request acted for, as authentication decided. */
export type AuthOutcome =
  /** A verified principal: its `sub` is the only claim reported. */
  | 'authenticated'
  /** No principal, and nothing refused the request for it. */
  | 'anonymous'
  /** 401: no credentials, a bad token or an unsupported scheme. */
  | 'unauthenticated'
  /** 403: the principal lacks a scope, or may not act on this resource. */
  | 'forbidden';

/** What a request ended with: the only input of {@link conventionDecisions}. */
export interface RequestOutcome {
  readonly status: number;
  /** The final response's headers, lower-case names (as every `ApiResponse` has them). */
  readonly headers: Readonly<Record<string, string>>;
  /** The response's JSON document, when it has one (an error document is read for its codes). */
  readonly json?: unknown;
  /** `ctx.var.apiVersion`: the version `versioning()` negotiated. */
  readonly apiVersion?: number | undefined;
  /** `ctx.var.principal.sub`: never the token, never another claim. */
  readonly subject?: string | undefined;
}

/** The conventions' decisions for one request (absent members: that convention said nothing). */
export interface ConventionDecisions {
  /** The first error code of the error document, when the answer is an error. */
  readonly errorCode?: string;
  /** How many problems the error document lists (validation failures: one per field). */
  readonly errorCount?: number;
  readonly idempotency?: IdempotencyOutcome;
  readonly precondition?: PreconditionOutcome;
  /** The `Cache-Control` the answer carries. */
  readonly cachePolicy?: string;
  readonly rateLimit?: RateLimitOutcome;
  /** The tightest policy's remaining quota (`r`), when a `RateLimit` field was sent. */
  readonly rateLimitRemaining?: number;
  /** The tightest policy's name, when a `RateLimit` field was sent. */
  readonly rateLimitPolicy?: string;
  readonly apiVersion?: number;
  /** True when the answer carries `Deprecation` (RFC 9745), or is the 410 of a retired route. */
  readonly deprecated?: boolean;
  /** True for the 410 `sunset` answer of a route past its `Sunset` date (RFC 8594). */
  readonly sunset?: boolean;
  readonly auth: AuthOutcome;
  /** The principal's `sub`, when authenticated. */
  readonly subject?: string;
}

/**
 * The decisions a request's answer shows.
 *
 * @example
 * conventionDecisions({ status: 200, headers: { 'idempotent-replayed': 'true' } });
 * // { idempotency: 'replayed', auth: 'anonymous' }
 */
export function conventionDecisions(outcome: RequestOutcome): ConventionDecisions {
  const { status, headers } = outcome;
  const decisions: { -readonly [K in keyof ConventionDecisions]: ConventionDecisions[K] } = {
    auth: outcome.subject === undefined ? 'anonymous' : 'authenticated',
  };
  const errors = status >= 400 ? errorCodes(outcome.json) : undefined;
  const code = errors?.[0];
  if (errors !== undefined && code !== undefined) {
    decisions.errorCode = code;
    decisions.errorCount = errors.length + omittedErrors(outcome.json);
  }

  // What the code shows a convention decided, as the error catalogue says (`decision`, docs/errors.md).
  const decided =
    code !== undefined && isErrorCode(code) ? (ERROR_CODES[code] as ErrorCodeEntry).decision : undefined;

  if (headers['idempotent-replayed'] === 'true') decisions.idempotency = 'replayed';
  else if (decided?.idempotency !== undefined) decisions.idempotency = decided.idempotency;

  if (status === 304) decisions.precondition = 'not-modified';
  else if (decided?.precondition !== undefined) decisions.precondition = decided.precondition;

  const cacheControl = headers['cache-control'];
  if (cacheControl !== undefined) decisions.cachePolicy = cacheControl;

  const field = headers.ratelimit;
  if (decided?.rateLimit !== undefined) decisions.rateLimit = decided.rateLimit;
  else if (field !== undefined) decisions.rateLimit = 'allowed';
  if (field !== undefined) {
    const tightest = tightestItem(field);
    if (tightest !== undefined) {
      decisions.rateLimitPolicy = tightest.policy;
      decisions.rateLimitRemaining = tightest.remaining;
    }
  }

  if (outcome.apiVersion !== undefined) decisions.apiVersion = outcome.apiVersion;
  if (decided?.sunset === true) {
    decisions.sunset = true;
    decisions.deprecated = true;
  } else if (headers.deprecation !== undefined) decisions.deprecated = true;

  if (decided?.auth !== undefined) decisions.auth = decided.auth;
  if (outcome.subject !== undefined) decisions.subject = outcome.subject;
  return decisions;
}

/**
 * The codes of an error document: a problem document's `errors` (several problems) or its `code`,
 * or a JSON:API document's `errors[].code` (docs/errors.md). Undefined for anything else.
 */
function errorCodes(json: unknown): string[] | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { errors, code } = json as { errors?: unknown; code?: unknown };
  if (Array.isArray(errors) && errors.length > 0) {
    const codes: string[] = [];
    for (const error of errors) {
      const c = (error as { code?: unknown } | null)?.code;
      if (typeof c === 'string') codes.push(c);
    }
    // A problem document's own `code` (`multiple-errors`) names the list; its members say why.
    if (codes.length > 0) return codes;
  }
  return typeof code === 'string' ? [code] : undefined;
}

/** Problems left out of a capped list (`meta.omittedErrors`, docs/validation.md "Limits"). */
function omittedErrors(json: unknown): number {
  const omitted = (json as { meta?: { omittedErrors?: unknown } }).meta?.omittedErrors;
  return typeof omitted === 'number' && Number.isSafeInteger(omitted) && omitted > 0 ? omitted : 0;
}

/**
 * The item of a `RateLimit` field with the least remaining quota: a Structured Field List of policy
 * names with their available quota `r` (draft-ietf-httpapi-ratelimit-headers, "RateLimit Field").
 * Items without a name and an `r` are skipped.
 */
function tightestItem(field: string): { policy: string; remaining: number } | undefined {
  let best: { policy: string; remaining: number } | undefined;
  for (const [policy, parameters] of parseItemList(field) ?? []) {
    const remaining = parameters.r;
    if (typeof policy !== 'string' || typeof remaining !== 'number') continue;
    if (best === undefined || remaining < best.remaining) best = { policy, remaining };
  }
  return best;
}
