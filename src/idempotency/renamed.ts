/**
 * The idempotency stores' names before every store factory was named `<backend><Convention>Store`
 * (`memoryIdempotencyStore`, `redisRateLimitStore`, ...). Each alias is the renamed function itself,
 * kept on this subpath for one release and then removed.
 */
import type { MemoryIdempotencyStoreOptions } from './stores/memory/budgets.js';
import { memoryIdempotencyStore } from './stores/memory/store.js';
import { postgresIdempotencyStore } from './stores/postgres/store.js';
import type { PostgresIdempotencyStoreOptions } from './stores/postgres/types.js';
import { type RedisIdempotencyStoreOptions, redisIdempotencyStore } from './stores/redis/store.js';

/** @deprecated Renamed `memoryIdempotencyStore`; this alias is removed in the next release. */
export const memoryStore = memoryIdempotencyStore;
/** @deprecated Renamed `redisIdempotencyStore`; this alias is removed in the next release. */
export const redisStore = redisIdempotencyStore;
/** @deprecated Renamed `postgresIdempotencyStore`; this alias is removed in the next release. */
export const postgresStore = postgresIdempotencyStore;
/** @deprecated Renamed `MemoryIdempotencyStoreOptions`; removed in the next release. */
export type MemoryStoreOptions = MemoryIdempotencyStoreOptions;
/** @deprecated Renamed `RedisIdempotencyStoreOptions`; removed in the next release. */
export type RedisStoreOptions = RedisIdempotencyStoreOptions;
/** @deprecated Renamed `PostgresIdempotencyStoreOptions`; removed in the next release. */
export type PostgresStoreOptions = PostgresIdempotencyStoreOptions;
