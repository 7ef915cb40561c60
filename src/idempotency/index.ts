export {
  DEFAULT_REPLAY_HEADERS,
  NEVER_STORED_STATUSES,
  REPLAYED_HEADER,
  replayOf,
  scopeKey,
  shouldStore,
  toStoredResponse,
} from './decision.js';
export {
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  inProgressError,
  invalidKeyError,
  keyReusedError,
  missingKeyError,
  storeUnavailableError,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './errors.js';
export { bodyDigest, canonicalJson, type FingerprintInput, requestFingerprint } from './fingerprint.js';
export { type HeldClaims, type HeldClaimsOptions, heldClaims } from './held-claims.js';
export {
  IDEMPOTENCY_KEY_HEADER,
  type InvalidKeyReason,
  invalidKeyDetail,
  type KeyParse,
  MAX_KEY_LENGTH,
  parseIdempotencyKey,
} from './key.js';
export { type MemoryStoreOptions, memoryStore } from './memory-store.js';
export { type IdempotencyOptions, idempotency } from './middleware.js';
export {
  IDEMPOTENCY_TRANSACTION,
  idempotencyTableDdl,
  type PostgresIdempotencyStore,
  type PostgresStoreOptions,
  postgresStore,
  type Queryable,
} from './postgres-store.js';
export { type RedisStoreOptions, redisStore } from './redis-store.js';
export type { ClaimOutcome, IdempotencyStore, StoredResponse, StoreTransaction } from './store.js';
