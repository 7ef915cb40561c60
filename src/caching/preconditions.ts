import { type EntityTag, parseEntityTagList, strongMatch, validateEtag, weakMatch } from './entity-tag.js';
import { parseHttpDate } from './http-date.js';

/**
 * GET, HEAD and QUERY: the methods that may answer 304 Not Modified (their preconditions answer 304
 * rather than 412, RFC 9110 section 13.2.2), and whose 2xx are cached. A QUERY's selected
 * representation is its results (RFC 10008 sections 2.6 and 2.7). Not "safe" (RFC 9110 section
 * 9.2.1, `isSafeMethod`): OPTIONS and TRACE are safe and never answer 304.
 */
export function mayAnswerNotModified(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'QUERY';
}

/** The precondition fields of a request, as received (`undefined` when absent). */
export interface PreconditionHeaders {
  readonly ifMatch?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
  readonly ifModifiedSince?: string | undefined;
  readonly ifUnmodifiedSince?: string | undefined;
}

/** The validators of the selected representation, as the origin server knows them now. */
export interface CurrentState {
  /** Whether the target resource has a current representation. */
  readonly exists: boolean;
  /** Its entity tag, `"v7"` or `W/"v7"` (a malformed tag throws a TypeError). */
  readonly etag?: string | undefined;
  /** Its modification time (compared at the one-second precision of HTTP-date). */
  readonly lastModified?: Date | number | undefined;
}

export interface PreconditionInput {
  readonly method: string;
  readonly headers: PreconditionHeaders;
  readonly current: CurrentState;
  /** The clock, for two-digit years in obsolete rfc850 dates. Default `Date.now()`. */
  readonly now?: number;
}

/** What to do with the request: perform it, answer 304 Not Modified, or answer 412. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'precondition-failed';

/** The precondition fields, as named in an error's `source.header`. */
export type PreconditionField = 'If-Match' | 'If-Unmodified-Since' | 'If-None-Match' | 'If-Modified-Since';

/** The outcome and the field that decided it (for an error's `source`). */
export interface PreconditionDecision {
  readonly outcome: PreconditionOutcome;
  /** The field whose condition was false; absent when the request proceeds. */
  readonly decidedBy?: PreconditionField;
}

const PROCEED: PreconditionDecision = Object.freeze({ outcome: 'proceed' });

/**
 * Evaluate the preconditions of a request in the order of RFC 9110 section 13.2.2:
 * 1. `If-Match` (strong comparison; `*` means "exists"), false → 412;
 * 2. else `If-Unmodified-Since` (a valid date, resource has a modification time), false → 412;
 * 3. `If-None-Match` (weak comparison; `*` means "exists"), false → 304 for GET/HEAD/QUERY, else 412;
 * 4. else, GET/HEAD/QUERY only, `If-Modified-Since`, false → 304 (QUERY: RFC 10008 section 2.6);
 * 5. proceed.
 * Malformed values never throw: an invalid date is ignored (sections 13.1.3-4), an unparseable list
 * member is ignored. An empty field value counts as absent.
 *
 * @example
 * evaluatePreconditions({ method: 'GET', headers: { ifNoneMatch: '"v7"' }, current: { exists: true, etag: '"v7"' } })
 * // 'not-modified'
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-13.2.2
 */
export function evaluatePreconditions(input: PreconditionInput): PreconditionOutcome {
  return decidePreconditions(input).outcome;
}

/** {@link evaluatePreconditions}, also naming the field that decided. */
export function decidePreconditions(input: PreconditionInput): PreconditionDecision {
  const { method, headers, current } = input;
  const now = input.now ?? Date.now();
  const etag = current.exists && current.etag !== undefined ? validateEtag(current.etag) : undefined;
  const lastModified = current.exists ? truncateToSecond(current.lastModified) : undefined;
  const ifMatch = present(headers.ifMatch);
  const ifNoneMatch = present(headers.ifNoneMatch);
  const safe = mayAnswerNotModified(method);

  // Steps 1 and 2.
  if (ifMatch !== undefined) {
    if (!ifMatchHolds(ifMatch, current.exists, etag))
      return { outcome: 'precondition-failed', decidedBy: 'If-Match' };
  } else {
    const since = dateOf(headers.ifUnmodifiedSince, now);
    if (since !== undefined && lastModified !== undefined && lastModified > since) {
      return { outcome: 'precondition-failed', decidedBy: 'If-Unmodified-Since' };
    }
  }
  // Steps 3 and 4.
  if (ifNoneMatch !== undefined) {
    if (!ifNoneMatchHolds(ifNoneMatch, current.exists, etag)) {
      return { outcome: safe ? 'not-modified' : 'precondition-failed', decidedBy: 'If-None-Match' };
    }
  } else if (safe) {
    const since = dateOf(headers.ifModifiedSince, now);
    if (since !== undefined && lastModified !== undefined && lastModified <= since) {
      return { outcome: 'not-modified', decidedBy: 'If-Modified-Since' };
    }
  }
  return PROCEED;
}

/** RFC 9110 section 13.1.1. */
function ifMatchHolds(value: string, exists: boolean, etag: EntityTag | undefined): boolean {
  const list = parseEntityTagList(value);
  if (list === '*') return exists;
  return etag !== undefined && list.some((tag) => strongMatch(tag, etag));
}

/** RFC 9110 section 13.1.2. */
function ifNoneMatchHolds(value: string, exists: boolean, etag: EntityTag | undefined): boolean {
  const list = parseEntityTagList(value);
  if (list === '*') return !exists;
  return etag === undefined || !list.some((tag) => weakMatch(tag, etag));
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function dateOf(value: string | undefined, now: number): number | undefined {
  return value === undefined ? undefined : parseHttpDate(value, now);
}

function truncateToSecond(time: Date | number | undefined): number | undefined {
  if (time === undefined) return undefined;
  const ms = typeof time === 'number' ? time : time.getTime();
  if (!Number.isFinite(ms)) throw new TypeError(`lastModified must be a valid time, got ${String(time)}`);
  return Math.floor(ms / 1000) * 1000;
}
