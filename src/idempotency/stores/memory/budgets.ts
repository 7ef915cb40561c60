// What a memory idempotency store is and what it takes: its interface, its options, their default budgets.
import type { StoreLimits } from '../limits.js';
import type { ClaimOutcome, IdempotencyStore } from '../store.js';

/**
 * A memory store whose usage can be read, for tests, metrics and the memory benchmark. Its calls
 * are those of every {@link IdempotencyStore}, narrowed: each answers at once, with the value.
 */
export interface MemoryIdempotencyStore extends IdempotencyStore {
  /** {@link IdempotencyStore.claim}, answered at once. */
  claim(...args: Parameters<IdempotencyStore['claim']>): ClaimOutcome;
  /** {@link IdempotencyStore.renew}, answered at once. */
  renew(...args: Parameters<IdempotencyStore['renew']>): boolean;
  /** {@link IdempotencyStore.complete}, answered at once. */
  complete(...args: Parameters<IdempotencyStore['complete']>): boolean;
  /** {@link IdempotencyStore.release}, answered at once. */
  release(...args: Parameters<IdempotencyStore['release']>): boolean;
  /** Records held (in progress and completed, expired ones not yet reclaimed included). */
  readonly size: number;
  /** Bytes held, as counted against `maxBytes`. */
  readonly bytes: number;
}

/** Options of `memoryIdempotencyStore`: the budgets ({@link StoreLimits}) and a clock. */
export interface MemoryIdempotencyStoreOptions extends StoreLimits {
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/**
 * Owners whose budgets fit in the store at once: the default owner budgets are this fraction of the
 * totals, so that fewer owners than this cannot fill the store for another (docs/idempotency.md,
 * "Budgets").
 */
const GUARANTEED_OWNERS = 100;
/** 1 000 records per owner: a thousand keyed writes a day each, for 100 owners at once. */
export const DEFAULT_MEMORY_MAX_ENTRIES = 100_000;
/** 1 MiB per owner: a thousand answers of about 600 bytes each kept whole, for 100 owners at once. */
export const DEFAULT_MEMORY_MAX_BYTES = 100 * 1024 * 1024;

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
