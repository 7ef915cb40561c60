import { Redis } from 'ioredis';
import pg from 'pg';
import { type IdempotencyStore, memoryStore, postgresStore, redisStore } from 'rest-conventions/idempotency';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from 'rest-conventions/ratelimit';
import type { Config } from './config.js';

/** The shared stores the configuration asks for, connected and ready, and how to let them go. */
export interface Infrastructure {
  readonly idempotencyStore: IdempotencyStore;
  readonly rateLimitStore: RateLimitStore;
  close(): Promise<void>;
}

/**
 * Connect the external stores the configuration names (`IDEMPOTENCY_STORE=redis|postgres`,
 * `RATE_LIMIT_STORE=redis`); the embedded in-memory stores otherwise. Connections are opened once, here, at start-up.
 */
export async function connectInfrastructure(config: Config): Promise<Infrastructure> {
  const closers: Array<() => Promise<unknown>> = [];
  let redis: Redis | undefined;
  let pool: pg.Pool | undefined;
  const redisClient = async () => {
    if (redis === undefined) {
      // Connect once at start-up and say so clearly when Redis is not there; afterwards a command
      // that cannot be sent fails fast, and the stores' own timeouts decide what the client sees.
      const client = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
      });
      try {
        await client.connect();
      } catch (error) {
        client.disconnect();
        throw new Error(`Redis is not reachable at ${new URL(config.redisUrl).host}`, { cause: error });
      }
      closers.push(() => client.quit());
      redis = client;
    }
    return redis;
  };
  const postgres = () => {
    if (pool === undefined) {
      const created = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
      closers.push(() => created.end());
      pool = created;
    }
    return pool;
  };

  let idempotencyStore: IdempotencyStore;
  switch (config.idempotencyStore) {
    case 'redis':
      idempotencyStore = redisStore({
        client: await redisClient(),
        prefix: `${config.storePrefix}:idempotency:`,
      });
      break;
    case 'postgres': {
      const store = postgresStore({ pool: postgres(), table: `${config.storePrefix}_idempotency` });
      await store.migrate();
      idempotencyStore = store;
      break;
    }
    default:
      idempotencyStore = memoryStore();
  }
  const rateLimitStore =
    config.rateLimit.store === 'redis'
      ? redisRateLimitStore({ client: await redisClient(), prefix: `${config.storePrefix}:ratelimit:` })
      : memoryRateLimitStore();
  return {
    idempotencyStore,
    rateLimitStore,
    close: async () => {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
