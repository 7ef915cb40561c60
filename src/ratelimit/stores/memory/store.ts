import { functionOption, positiveInteger } from '../../../errors/option-checks.js';
import { type GcraState, gcraDecideAll, type RateLimitDecision } from '../../gcra.js';
import { policyStorageId, type RateLimitPolicy } from '../../policy.js';
import type { RateLimitStore } from '../store.js';

/** Options of {@link memoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most (client, policy) entries kept (default 100 000, about 10 MB). Beyond it the least recently
   * admitted entry is dropped, which hands that client a fresh quota: size it above the number of
   * clients active within one window.
   */
  readonly maxEntries?: number;
  /** Clock in ms since the epoch (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/** A memory store with a readable size, for tests and metrics. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** Decides at once: memory never makes a request wait. */
  consumeSync(key: string, policies: readonly RateLimitPolicy[]): RateLimitDecision;
  /** Entries currently held. */
  readonly size: number;
}

export const DEFAULT_RATE_LIMIT_MAX_ENTRIES = 100_000;
/** Oldest entries examined for expiry per call: amortized O(1) cleanup, no timers. */
const SWEEP_PER_CALL = 8;
const SWEEP_EVERY = 16;
const ID_CACHE_LIMIT = 4096;

/**
 * The embedded default store: one GCRA state per (client, policy) in a `Map`, for a single process.
 * An entry expires at its theoretical arrival time (then it equals a full quota) and is evicted by
 * an incremental sweep of the least recently written entries; the map never exceeds `maxEntries`.
 *
 * @example
 * rateLimit({ policies, store: memoryRateLimitStore({ maxEntries: 50_000 }) });
 */
export function memoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const maxEntries = positiveInteger(
    'memoryRateLimitStore',
    'maxEntries',
    options.maxEntries,
    DEFAULT_RATE_LIMIT_MAX_ENTRIES,
  );
  const now = functionOption('memoryRateLimitStore', 'now', options.now ?? Date.now);
  // Insertion order is write order: the first entries are the least recently admitted.
  const entries = new Map<string, GcraState>();

  const expired = (state: GcraState, at: number) =>
    state.tatMs < at || (state.tatMs === at && state.tatFraction === 0);

  // Two cursors that persist across calls (a Map iterator survives deletions and rehashing): one
  // sweeps for expired entries, the other finds the least recently admitted entry to drop when
  // over `maxEntries`. A fresh iterator from the start on every call would also walk every hole the
  // map's deletions left at its front (it compacts only on growth), which made a call O(n).
  // Every SWEEP_EVERY-th call the sweep examines SWEEP_EVERY * SWEEP_PER_CALL entries further on.
  let calls = 0;
  let oldestCursor: MapIterator<string> | undefined;
  let sweepCursor: MapIterator<[string, GcraState]> | undefined;
  const sweep = (at: number) => {
    if (++calls % SWEEP_EVERY !== 0) return;
    sweepCursor ??= entries.entries();
    for (let examined = 0; examined < SWEEP_EVERY * SWEEP_PER_CALL; examined++) {
      const next = sweepCursor.next();
      if (next.done === true) {
        // A cursor holds the table it started on until it steps again (V8 keeps a rehashed table
        // for its iterators): the next cycle starts both afresh, so an idle one keeps nothing.
        sweepCursor = undefined;
        oldestCursor = undefined;
        return;
      }
      const [id, state] = next.value;
      if (expired(state, at) && entries.get(id) === state) entries.delete(id);
    }
  };
  const dropOldest = () => {
    oldestCursor ??= entries.keys();
    let next = oldestCursor.next();
    if (next.done === true) {
      oldestCursor = entries.keys();
      next = oldestCursor.next();
    }
    if (next.done !== true) entries.delete(next.value);
  };

  // The storage ids of one client under one policy list, built once: no string is concatenated
  // (and hashed anew) per request. Bounded like the peer cache of the default key.
  const idsByList = new WeakMap<readonly RateLimitPolicy[], Map<string, readonly string[]>>();
  const idsOf = (key: string, policies: readonly RateLimitPolicy[]): readonly string[] => {
    let byKey = idsByList.get(policies);
    if (byKey === undefined) {
      byKey = new Map();
      idsByList.set(policies, byKey);
    }
    let ids = byKey.get(key);
    if (ids === undefined) {
      ids = policies.map((policy) => `${policyStorageId(policy)}\u0000${key}`);
      if (byKey.size >= ID_CACHE_LIMIT) byKey.clear();
      byKey.set(key, ids);
    }
    return ids;
  };

  const consumeSync = (key: string, policies: readonly RateLimitPolicy[]): RateLimitDecision => {
    const at = Math.floor(now());
    sweep(at);
    const ids = idsOf(key, policies);
    const decision = gcraDecideAll(
      ids.map((id) => entries.get(id)),
      at,
      policies,
    );
    if (decision.allowed) {
      ids.forEach((id, i) => {
        entries.delete(id);
        entries.set(id, decision.newStates[i]!);
      });
      while (entries.size > maxEntries) dropOldest();
    }
    return {
      allowed: decision.allowed,
      retryAfterSeconds: decision.retryAfterSeconds,
      policies: decision.policies,
    };
  };

  return {
    inProcess: true,
    get size() {
      return entries.size;
    },
    consume(key: string, policies: readonly RateLimitPolicy[]): Promise<RateLimitDecision> {
      try {
        return Promise.resolve(consumeSync(key, policies));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    consumeSync,
  };
}
