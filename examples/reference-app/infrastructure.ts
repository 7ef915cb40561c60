import { Redis } from 'ioredis';
import pg from 'pg';
import { type IdempotencyStore, memoryStore, postgresStore, redisStore } from 'rest-conventions/idempotency';
import type { Config } from './config.js';

/** The shared stores the configuration asks for, connected and ready, and how to let them go. */
export interface Infrastructure {
  readonly idempotencyStore: IdempotencyStore;
  close(): Promise<void>;
}

/**
 * Connect the external stores the configuration names (`IDEMPOTENCY_STORE=redis|postgres`); the
 * embedded in-memory store otherwise. Connections are opened once, here, at start-up.
 */
export async function connectInfrastructure(config: Config): Promise<Infrastructure> {
  const closers: Array<() => Promise<unknown>> = [];
  let redis: Redis | undefined;
  let pool: pg.Pool | undefined;
  const redisClient = () => {
    if (redis === undefined) {
      const client = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
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
      idempotencyStore = redisStore({ client: redisClient() });
      break;
    case 'postgres': {
      const store = postgresStore({ pool: postgres() });
      await store.migrate();
      idempotencyStore = store;
      break;
    }
    default:
      idempotencyStore = memoryStore();
  }
  return {
    idempotencyStore,
    close: async () => {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
