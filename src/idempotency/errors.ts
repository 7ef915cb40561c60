import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { IDEMPOTENCY_KEY_HEADER, type InvalidKeyReason, invalidKeyDetail } from './key.js';

/** `Retry-After` (seconds) on a 409 for a request still in progress. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;
/** `Retry-After` (seconds) on a 503 when the store cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const source = { header: IDEMPOTENCY_KEY_HEADER } as const;

/** 400: the route requires a key and none was sent (draft section 2.7). */
export function missingKeyError(): ApiError {
  return codedError(400, 'idempotency-key-missing', {
    detail: 'This operation requires an Idempotency-Key header.',
    source,
  });
}

/** 400: the key is empty, too long, has characters outside printable ASCII, or several values. */
export function invalidKeyError(reason: InvalidKeyReason): ApiError {
  return codedError(400, 'invalid-idempotency-key', { detail: invalidKeyDetail(reason), source });
}

/** 422: the key was already used for a different request (draft section 2.7). */
export function keyReusedError(): ApiError {
  return codedError(422, 'idempotency-key-reused', {
    detail: 'This Idempotency-Key was already used for a different request (method, path or body differ).',
    source,
  });
}

/** 409: a request with this key is still being processed (draft section 2.7). */
export function inProgressError(): ApiError {
  return codedError(409, 'idempotency-request-in-progress', {
    detail: 'A request with this Idempotency-Key is still being processed; retry later.',
    source,
    headers: { 'retry-after': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
  });
}

/** 503: the store failed or timed out; the request was not executed (fail closed). */
export function storeUnavailableError(cause: unknown): ApiError {
  return codedError(503, 'idempotency-store-unavailable', {
    detail: 'The idempotency store is unavailable; the request was not executed.',
    headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/**
 * 503 with `Retry-After` (RFC 9110 section 15.6.4): no database connection came free within the
 * pool's bound. The request's own work did not run; the pool frees up as requests end.
 */
export function databaseUnavailableError(): ApiError {
  return codedError(503, 'database-unavailable', {
    detail: 'The database is busy; try again shortly.',
    headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

/** `Retry-After` in whole seconds (at least 1) for a refusal the store estimated in milliseconds. */
export function retryAfterSeconds(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/** A wait in words, to the minute past an hour (`45 s`, `12 min`, `23 h 5 min`). */
function inWords(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/**
 * 429: the caller's own share of the idempotency store (its quota of records or bytes) is full of
 * unexpired records; none is dropped to make room, so this request was not executed (RFC 6585
 * section 4). `Retry-After` (RFC 9110 section 10.2.3) is when the caller's own records leave room:
 * waiting it out is enough, and retrying sooner is refused the same way, which the detail says.
 * Without `retryAfterMs` (no wait makes room), no `Retry-After`, and the detail says that too.
 */
export function quotaFullError(retryAfterMs: number | undefined): ApiError {
  if (retryAfterMs === undefined) {
    return codedError(429, 'idempotency-quota-exceeded', {
      detail:
        'This request is larger than your whole quota of requests with an Idempotency-Key; it was not executed, and waiting will not change that.',
      source,
    });
  }
  const seconds = retryAfterSeconds(retryAfterMs);
  return codedError(429, 'idempotency-quota-exceeded', {
    detail: `Your requests with an Idempotency-Key fill your quota; this request was not executed. Room frees in ${inWords(Number(seconds))}, when the oldest of them expires (Retry-After); retrying sooner is refused the same way.`,
    source,
    headers: { 'retry-after': seconds },
  });
}

/**
 * 503: the idempotency store is full of unexpired records (its total budget); none is dropped to
 * make room, so this request was not executed. No `Retry-After`: when room frees depends on other
 * callers' records, which nothing in an answer may reveal (docs/idempotency.md, "Budgets").
 */
export function storeFullError(): ApiError {
  return codedError(503, 'idempotency-store-full', {
    detail:
      'The idempotency store is full; the request was not executed. No wait can be promised: room frees as records expire.',
  });
}
