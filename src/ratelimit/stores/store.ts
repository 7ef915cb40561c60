import type { RateLimitDecision } from '../gcra.js';
import type { RateLimitPolicy } from '../policy.js';

/**
 * Where rate-limit state lives. One call decides one request against every policy of its route,
 * atomically: all policies consume one request, or (when any refuses) none does. Implementations
 * take the time from their own clock (the memory store's `now`, Redis `TIME`).
 *
 * @example
 * const decision = await store.consume('ip:198.51.100.9', [{ name: 'burst', quota: 100, windowSeconds: 60 }]);
 */
export interface RateLimitStore {
  consume(key: string, policies: readonly RateLimitPolicy[]): Promise<RateLimitDecision>;
  /**
   * The same decision, synchronously, for a store that can answer from this process's memory: the
   * middleware then decides without waiting at all. Optional.
   */
  consumeSync?(key: string, policies: readonly RateLimitPolicy[]): RateLimitDecision;
  /**
   * True when the store answers from this process's memory and cannot hang: the middleware then
   * skips the timer that bounds calls to remote stores (one timer per request saved).
   */
  readonly inProcess?: boolean;
}
