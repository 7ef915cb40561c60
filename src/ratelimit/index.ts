/**
 * Rate limiting (`rest-conventions/ratelimit`): GCRA per client and policy, the IETF RateLimit header
 * fields (draft-ietf-httpapi-ratelimit-headers-10), memory and Redis stores, fail-open/closed.
 */
export {
  type AddressBlock,
  addressGroup,
  clientAddress,
  formatIp,
  type IpAddress,
  inBlocks,
  parseAddressBlock,
  parseIp,
} from './client-address.js';
export {
  debtOf,
  decide,
  decideAll,
  decisionFromDebts,
  type GcraDecision,
  type GcraState,
  type PolicyDecision,
  type RateLimitDecision,
  stateFromDebt,
} from './gcra.js';
export { formatRateLimit, formatRateLimitPolicy, rateLimitHeaders, tightestPolicy } from './headers.js';
export { DEFAULT_IPV6_PREFIX, type DefaultKeyOptions, defaultRateLimitKey } from './key.js';
export {
  DEFAULT_MAX_ENTRIES,
  type MemoryStore,
  type MemoryStoreOptions,
  memoryStore,
} from './memory-store.js';
export {
  DEFAULT_STORE_TIMEOUT_MS,
  type RateLimitOptions,
  rateLimit,
  STORE_UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './middleware.js';
export { policyStorageId, type RateLimitPolicy, validatePolicies } from './policy.js';
export { type RedisStoreOptions, redisStore } from './redis-store.js';
export type { RateLimitStore } from './store.js';
export { StoreTimeoutError, withTimeout } from './timeout.js';
