import pg from 'pg';
import {
  type IdempotencyStore,
  memoryIdempotencyStore,
  postgresIdempotencyStore,
  redisIdempotencyStore,
} from 'rest-conventions/idempotency';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from 'rest-conventions/ratelimit';
import type { Config } from './config.js';
import { applyMigrations, type Migration } from './database/migration-runner.js';
import { dataMigrations, idempotencyMigration } from './database/migrations.js';
import { type DataStores, postgresDataStores } from './database/postgres-data-stores.js';
import type { ReadinessCheck } from './health/readiness.js';
import { connectRedis, type RedisConnection } from './redis-connection.js';
import { hostOf, reasonOf, STORE_CONNECT_TIMEOUT_MS, StartupError, within } from './store-startup.js';

export { StartupError } from './store-startup.js';

/** The shared stores the configuration asks for, connected and ready, and how to let them go. */
export interface Infrastructure extends Partial<DataStores> {
  readonly idempotencyStore: IdempotencyStore;
  readonly rateLimitStore: RateLimitStore;
  /** One check per shared store in use, for `GET /health/ready`. */
  readonly readinessChecks: readonly ReadinessCheck[];
  close(): Promise<void>;
}

/**
 * Connect the external stores the configuration names (`IDEMPOTENCY_STORE=redis|postgres`,
 * `RATE_LIMIT_STORE=redis`); the embedded in-memory stores otherwise. Connections are opened once, here, at start-up.
 */
export async function connectInfrastructure(config: Config): Promise<Infrastructure> {
  const closers: Array<() => Promise<unknown>> = [];
  let pool: pg.Pool | undefined;
  // One Redis connection for both stores, except with REDIS_WAIT_REPLICAS > 0: an idempotency
  // completion then sends WAIT, which holds its connection until a replica answers (up to 100 ms),
  // and rate-limit checks queued behind it would overrun their 200 ms bound and fail open. The
  // rate-limit store gets a connection of its own then (docs/deployment.md).
  const waits = config.idempotencyStore === 'redis' && config.redisWaitReplicas > 0;
  // By the name Redis lists them as: `<STORE_PREFIX>:stores`, or `:idempotency` and `:rate-limit`.
  const redisConnections = new Map<string, RedisConnection>();
  const redisClient = async (store: 'idempotency' | 'rate-limit') => {
    const name = `${config.storePrefix}:${waits ? store : 'stores'}`;
    let connection = redisConnections.get(name);
    if (connection === undefined) {
      connection = await connectRedis(config, name);
      closers.push(connection.close);
      redisConnections.set(name, connection);
    }
    return connection.client;
  };
  const postgres = () => {
    if (pool === undefined) {
      // A connection (handshake included) not ready within the bound fails instead of waiting for
      // ever: at start-up, and mid-run when the server stops answering, so the pool never fills up
      // with connections that hang.
      const created = new pg.Pool({
        connectionString: config.databaseUrl,
        max: config.databasePoolSize,
        connectionTimeoutMillis: STORE_CONNECT_TIMEOUT_MS,
        // Queries are sent without waiting for the one before to answer: the idempotency store
        // then sends BEGIN with its claim and COMMIT with its completion (docs/idempotency.md).
        pipeline: true,
      });
      // An idle connection that breaks (PostgreSQL restarted) is dropped by the pool; without a
      // listener its 'error' event would end the process. The next query connects afresh.
      created.on('error', () => {});
      closers.push(() => created.end());
      pool = created;
    }
    return pool;
  };

  let idempotencyStore: IdempotencyStore;
  switch (config.idempotencyStore) {
    case 'redis':
      idempotencyStore = redisIdempotencyStore({
        client: await redisClient('idempotency'),
        prefix: `${config.storePrefix}:idempotency:`,
        // A completed record is on this many replicas before its response is sent, so a failover
        // to one of them keeps it (docs/deployment.md, "Redis Cluster").
        replicas: config.redisWaitReplicas,
      });
      break;
    case 'postgres': {
      // With the data in PostgreSQL too, a write and its idempotency record share one transaction.
      idempotencyStore = postgresIdempotencyStore({
        pool: postgres(),
        table: `${config.storePrefix}_idempotency`,
        transactional: config.dataStore === 'postgres',
      });
      break;
    }
    default:
      idempotencyStore = memoryIdempotencyStore(config.idempotencyLimits);
  }
  // Versioned migrations, behind an advisory lock so instances starting together take turns.
  const migrations: Migration[] = [];
  if (config.dataStore === 'postgres') migrations.push(...dataMigrations(config.storePrefix));
  if (config.idempotencyStore === 'postgres')
    migrations.push(idempotencyMigration(`${config.storePrefix}_idempotency`));
  if (migrations.length > 0) {
    const host = hostOf(config.databaseUrl, 'DATABASE_URL');
    try {
      await within(
        applyMigrations({ pool: postgres(), prefix: config.storePrefix, migrations }),
        STORE_CONNECT_TIMEOUT_MS,
      );
    } catch (error) {
      // Not awaited: ending a pool waits for its connections, and a stalled one may never answer.
      void pool?.end().catch(() => {});
      const which = [
        config.dataStore === 'postgres' ? 'data store' : undefined,
        config.idempotencyStore === 'postgres' ? 'idempotency store' : undefined,
      ].filter((name) => name !== undefined);
      throw new StartupError(
        `PostgreSQL (${which.join(' and ')}) is not usable at ${host}: ${reasonOf(error)}`,
      );
    }
  }
  const afterOrderInsert =
    config.testCrash === 'after-order-insert' ? () => process.kill(process.pid, 'SIGKILL') : undefined;
  const dataStores =
    config.dataStore === 'postgres'
      ? postgresDataStores(postgres(), config.storePrefix, afterOrderInsert && { afterOrderInsert })
      : {};
  const rateLimitStore =
    config.rateLimit.store === 'redis'
      ? redisRateLimitStore({
          client: await redisClient('rate-limit'),
          prefix: `${config.storePrefix}:ratelimit:`,
        })
      : memoryRateLimitStore();
  const readinessChecks: ReadinessCheck[] = [];
  if (pool !== undefined) {
    // A connection of its own, kept open: readiness asks whether PostgreSQL answers, not whether the
    // app's pool has a connection free, which one user's burst of writes may hold for a moment
    // (docs/deployment.md, "Health and readiness").
    const probe = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 1,
      idleTimeoutMillis: 0,
      connectionTimeoutMillis: STORE_CONNECT_TIMEOUT_MS,
    });
    probe.on('error', () => {});
    closers.push(() => probe.end());
    readinessChecks.push({ name: 'postgres', check: () => probe.query('SELECT 1') });
  }
  if (redisConnections.size > 0) {
    // Ready when every connection is: each store needs its own.
    const connections = [...redisConnections.values()];
    readinessChecks.push({ name: 'redis', check: () => Promise.all(connections.map((c) => c.ready())) });
  }
  return {
    ...dataStores,
    readinessChecks,
    idempotencyStore,
    rateLimitStore,
    close: async () => {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
