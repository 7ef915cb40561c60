/**
 * Rate limiting (`rest-conventions/ratelimit`): GCRA per client and policy, the IETF RateLimit header
 * fields and problem types (draft-ietf-httpapi-ratelimit-headers-11), memory and Redis stores,
 * fail-open/closed.
 */

export type {
  IoredisScriptClient,
  NodeRedisScriptClient,
  NodeRedisScriptInput,
  RedisScriptClient,
} from '../stores/redis-client.js';
export {
  type AddressBlock,
  addressGroup,
  clientAddress,
  formatIp,
  type IpAddress,
  parseAddressBlock,
  parseIp,
} from './client-address.js';
export {
  type GcraDecision,
  type GcraState,
  gcraDecide,
  gcraDecideAll,
  type PolicyDecision,
  type RateLimitDecision,
} from './gcra.js';
export { formatRateLimit, formatRateLimitPolicy, rateLimitHeaders, tightestPolicy } from './headers.js';
export { DEFAULT_IPV6_PREFIX, type DefaultKeyOptions, defaultRateLimitKey } from './key.js';
export {
  DEFAULT_RATE_LIMIT_TIMEOUT_MS,
  type RateLimitOptions,
  rateLimit,
  STORE_UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './middleware.js';
export type { RateLimitPolicy } from './policy.js';
export {
  abnormalUsageDetectedError,
  quotaExceededError,
  RATE_LIMIT_PROBLEM_TYPES,
  type RateLimitRefusal,
  temporaryReducedCapacityError,
} from './problem-types.js';
export {
  DEFAULT_RATE_LIMIT_MAX_ENTRIES,
  type MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  memoryRateLimitStore,
} from './stores/memory/store.js';
export { type RedisRateLimitStoreOptions, redisRateLimitStore } from './stores/redis/store.js';
export type { RateLimitStore } from './stores/store.js';
