import { positiveInteger } from '../../errors/option-checks.js';
import type { StoredResponse } from './store.js';

/**
 * The budgets of an idempotency store: entries and bytes in total and per owner. A claim that would
 * exceed one is refused (`full`), never made room for by dropping an unexpired record.
 */
export interface StoreLimits {
  /** Most records held at once, in progress or completed. */
  readonly maxEntries?: number;
  /** Most bytes held at once, as counted by {@link recordBytes}. */
  readonly maxBytes?: number;
  /** Most records one owner (principal or anonymous client) holds at once (default 1 000). */
  readonly ownerMaxEntries?: number;
  /** Most bytes one owner holds at once (default 4 MiB). */
  readonly ownerMaxBytes?: number;
}

/** The limits with every default filled in. */
export type ResolvedStoreLimits = { readonly [K in keyof StoreLimits]-?: number };

export const DEFAULT_OWNER_MAX_ENTRIES = 1_000;
export const DEFAULT_OWNER_MAX_BYTES = 4 * 1024 * 1024;
/** Fixed cost counted per record on top of its key, fingerprint and response. */
export const RECORD_OVERHEAD_BYTES = 64;
/** The owner of a claim that names none. */
export const ANONYMOUS_OWNER = 'anonymous';

/**
 * Validate limits at start-up (a TypeError names the option) and fill in the defaults; `totals` are
 * the store's own defaults for `maxEntries` and `maxBytes`.
 */
export function readStoreLimits(
  store: string,
  options: StoreLimits,
  totals: { readonly maxEntries: number; readonly maxBytes: number },
): ResolvedStoreLimits {
  const read = (name: keyof StoreLimits, fallback: number): number => {
    return positiveInteger(store, name, options[name], fallback);
  };
  return {
    maxEntries: read('maxEntries', totals.maxEntries),
    maxBytes: read('maxBytes', totals.maxBytes),
    ownerMaxEntries: read('ownerMaxEntries', DEFAULT_OWNER_MAX_ENTRIES),
    ownerMaxBytes: read('ownerMaxBytes', DEFAULT_OWNER_MAX_BYTES),
  };
}

/**
 * The bytes a record counts against the budgets: its key, fingerprint, the stored response
 * (status, header names and values, body) and {@link RECORD_OVERHEAD_BYTES}. String lengths are
 * counted in UTF-16 code units, an approximation every store shares.
 */
export function recordBytes(key: string, fingerprint: string, response?: StoredResponse): number {
  let bytes = RECORD_OVERHEAD_BYTES + key.length + fingerprint.length;
  if (response !== undefined) {
    bytes += 2 + response.body.byteLength;
    for (const name in response.headers) bytes += name.length + (response.headers[name]?.length ?? 0);
  }
  return bytes;
}

/**
 * Bytes a claim holds, beyond its key and fingerprint, until it completes: room for the status and
 * headers of its record should the response's body not be kept (a {@link briefResponse}). Every
 * store counts a claim as {@link claimBytes}, so completing never takes an owner past its budget.
 */
export const BRIEF_BYTES = 256;

/** What a claim of `key` counts against the budgets until it completes. */
export function claimBytes(key: string, fingerprint: string): number {
  return recordBytes(key, fingerprint) + BRIEF_BYTES;
}

/**
 * The header a brief record is replayed with: the response's body was not kept (it did not fit the
 * owner's budget), only what a retry needs to know what happened.
 */
export const CONTENT_OMITTED_HEADER = 'idempotent-content-omitted';
/** The headers a brief record keeps, most useful first: where the result is, and its validators. */
const BRIEF_HEADERS: readonly string[] = ['location', 'content-location', 'etag', 'last-modified'];

/**
 * The response as a brief record keeps it: its status, {@link CONTENT_OMITTED_HEADER}, and of its
 * `Location`, `Content-Location`, `ETag` and `Last-Modified` those that fit, in that order, with no
 * body. `fits` says whether a candidate fits the claim's room (default: {@link BRIEF_BYTES} as
 * {@link recordBytes} counts them).
 */
export function briefResponse(
  response: StoredResponse,
  fits: (brief: StoredResponse) => boolean = (brief) =>
    recordBytes('', '', brief) - RECORD_OVERHEAD_BYTES <= BRIEF_BYTES,
): StoredResponse {
  let brief: StoredResponse = {
    status: response.status,
    headers: { [CONTENT_OMITTED_HEADER]: 'true' },
    body: new Uint8Array(0),
  };
  for (const name of BRIEF_HEADERS) {
    const value = response.headers[name];
    if (value === undefined) continue;
    const candidate = { ...brief, headers: { ...brief.headers, [name]: value } };
    if (fits(candidate)) brief = candidate;
  }
  return brief;
}

/**
 * Whether a completed record keeps its whole response: when, with it, the owner's bytes still leave
 * each record the owner may yet claim (up to `ownerMaxEntries`) the room a claim like this one
 * takes. So keeping bodies never makes a later claim of the owner fail: an owner makes
 * `ownerMaxEntries` keyed writes within the retention whatever the size of their answers, and the
 * bodies past the budget are kept brief ({@link briefResponse}).
 *
 * `usage` is the owner's live records and bytes, this claim included at `claimed` bytes; `whole` is
 * the bytes of the record with its whole response.
 */
export function keepsWhole(
  usage: { readonly entries: number; readonly bytes: number },
  claimed: number,
  whole: number,
  limits: Pick<ResolvedStoreLimits, 'ownerMaxEntries' | 'ownerMaxBytes'>,
): boolean {
  const later = Math.max(0, limits.ownerMaxEntries - usage.entries);
  return usage.bytes - claimed + whole + later * claimed <= limits.ownerMaxBytes;
}

/** A live record as {@link untilOwnerRoom} weighs it. */
export interface HeldRecord {
  readonly expiresAt: number;
  readonly bytes: number;
}

/**
 * How long until the owner's own records leave room for a claim of `need` bytes, in ms from `at`:
 * the expiry of the record whose end, with those before it, brings the owner under both its
 * budgets. Exact for the records as they are (a request still running counts until its lease ends),
 * and computed from the owner's records alone. `undefined` when no wait makes room (`need` alone
 * is over the owner's byte budget); 0 when there is room now.
 */
export function untilOwnerRoom(
  records: readonly HeldRecord[],
  need: number,
  limits: Pick<ResolvedStoreLimits, 'ownerMaxEntries' | 'ownerMaxBytes'>,
  at: number,
): number | undefined {
  if (need > limits.ownerMaxBytes) return undefined;
  const live = records.filter((r) => r.expiresAt > at).sort((a, b) => a.expiresAt - b.expiresAt);
  let entries = live.length;
  let bytes = live.reduce((sum, r) => sum + r.bytes, 0);
  const fits = () => entries < limits.ownerMaxEntries && bytes + need <= limits.ownerMaxBytes;
  if (fits()) return 0;
  for (const record of live) {
    entries--;
    bytes -= record.bytes;
    if (fits()) return record.expiresAt - at;
  }
  return undefined;
}
