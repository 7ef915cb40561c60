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
    const value = options[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${store}: ${name} must be a positive integer, got ${String(options[name])}`);
    }
    return value;
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
