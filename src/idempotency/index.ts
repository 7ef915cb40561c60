export type {
  IoredisScriptClient,
  NodeRedisScriptClient,
  NodeRedisScriptInput,
  RedisScriptClient,
} from '../stores/redis-client.js';
export {
  DEFAULT_REPLAY_HEADERS,
  REPLAYED_HEADER,
  replayOf,
  shouldStore,
  toStoredResponse,
} from './decision.js';
export {
  databaseUnavailableError,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  retryAfterSeconds,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './errors.js';
export { type FingerprintInput, requestFingerprint } from './fingerprint.js';
export { type HeldClaims, type HeldClaimsOptions, heldClaims } from './held-claims.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  type InvalidKeyReason,
  type KeyParse,
  MAX_KEY_LENGTH,
  parseIdempotencyKey,
} from './key.js';
export { type IdempotencyAdds, type IdempotencyOptions, idempotency } from './middleware.js';
export {
  ANONYMOUS_OWNER,
  BRIEF_BYTES,
  briefResponse,
  CONTENT_OMITTED_HEADER,
  claimBytes,
  DEFAULT_OWNER_MAX_BYTES,
  DEFAULT_OWNER_MAX_ENTRIES,
  type HeldRecord,
  keepsWhole,
  type ResolvedStoreLimits,
  recordBytes,
  type StoreLimits,
  untilOwnerRoom,
} from './stores/limits.js';
export {
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_ENTRIES,
  type MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
  memoryIdempotencyStore,
} from './stores/memory/store.js';
export {
  type ConnectionPool,
  idempotencyTableDdl,
  type NamedStatement,
  type PooledConnection,
  type PostgresIdempotencyStore,
  type PostgresIdempotencyStoreOptions,
  postgresIdempotencyStore,
  type Queryable,
  type QueryResult,
} from './stores/postgres/store.js';
export { type RedisIdempotencyStoreOptions, redisIdempotencyStore } from './stores/redis/store.js';
export {
  type ClaimOptions,
  type ClaimOutcome,
  type IdempotencyStore,
  NotReplicatedError,
  type StoredResponse,
  type StoreTransaction,
} from './stores/store.js';
export { transactionOrPool } from './transaction-or-pool.js';
