import type { StoreLimits } from '../limits.js';

/** Options of `memoryIdempotencyStore`: the budgets ({@link StoreLimits}) and a clock. */
export interface MemoryIdempotencyStoreOptions extends StoreLimits {
  /**
   * The most bytes one stored response counts (status, headers, body; default 8 KiB). Each claim
   * reserves that much of its owner's budget until it completes; a larger response is answered but
   * not stored (its claim is released), so no owner can hold more than its budget.
   */
  readonly maxResponseBytes?: number;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

export const DEFAULT_MEMORY_MAX_ENTRIES = 100_000;
export const DEFAULT_MEMORY_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MEMORY_MAX_RESPONSE_BYTES = 8 * 1024;
/**
 * Owners whose budgets fit in the store at once: the default owner budgets are this fraction of the
 * totals, so that fewer owners than this cannot fill the store for another (docs/idempotency.md).
 */
const GUARANTEED_OWNERS = 1_000;
/**
 * The options with each owner budget not given set to a {@link GUARANTEED_OWNERS}th of its total
 * (given or default), so that fewer owners than that cannot fill the store for another.
 */
export function withOwnerShares(options: MemoryIdempotencyStoreOptions): StoreLimits {
  const share = (total: unknown) =>
    Number.isSafeInteger(total) && (total as number) >= 1
      ? Math.max(1, Math.floor((total as number) / GUARANTEED_OWNERS))
      : undefined;
  const ownerMaxEntries = options.ownerMaxEntries ?? share(options.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES);
  const ownerMaxBytes = options.ownerMaxBytes ?? share(options.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES);
  return {
    ...options,
    ...(ownerMaxEntries === undefined ? {} : { ownerMaxEntries }),
    ...(ownerMaxBytes === undefined ? {} : { ownerMaxBytes }),
  };
}

/**
 * `maxResponseBytes` checked at start-up: a positive integer below the owner's byte budget. Not
 * given, it is 8 KiB, or half the owner's byte budget when that is smaller.
 */
export function readMaxResponseBytes(options: MemoryIdempotencyStoreOptions, ownerMaxBytes: number): number {
  const value =
    options.maxResponseBytes ??
    Math.max(1, Math.min(DEFAULT_MEMORY_MAX_RESPONSE_BYTES, Math.floor(ownerMaxBytes / 2)));
  if (
    !Number.isSafeInteger(value) ||
    value < 1 ||
    (options.maxResponseBytes !== undefined && value >= ownerMaxBytes)
  ) {
    throw new TypeError(
      `memoryIdempotencyStore: maxResponseBytes must be a positive integer below ownerMaxBytes (${ownerMaxBytes}), got ${String(options.maxResponseBytes)}`,
    );
  }
  return value;
}
