import { Cluster, Redis } from 'ioredis';
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

/**
 * A store the app cannot start without is unusable: the message says which store, where, and why, in
 * one line, without the URL's credentials (`main.ts` prints it and exits non-zero).
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** `host:port` of a connection URL, never its user or password. */
function hostOf(url: string, setting: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new StartupError(`${setting} is not a valid URL`);
  }
}

/** The reason of a connection failure, in a few words: an errno code or the first line of a message. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** How long start-up waits for a store to answer (connect, handshake, first command): 2 s. */
export const STORE_CONNECT_TIMEOUT_MS = 2_000;

/**
 * `work`, or a rejection once `ms` have passed: a store that accepts the connection but never
 * answers (stalled, overloaded) must not hang start-up.
 */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

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
  let redis: Redis | Cluster | undefined;
  const redisClient = async () => {
    if (redis === undefined) {
      // Connect once at start-up and say so clearly when Redis is not there; afterwards a command
      // that cannot be sent fails fast, and the stores' own timeouts decide what the client sees.
      const nodes = config.redisClusterNodes;
      const host =
        nodes === undefined
          ? hostOf(config.redisUrl, 'REDIS_URL')
          : `cluster ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
      const options = {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: STORE_CONNECT_TIMEOUT_MS,
      };
      // One node: no auto pipelining. Each request is read in its own turn of the event loop, so
      // its batches held one command, and building one cost more than the write it saved: a keyed
      // POST took 12% more of the app's CPU with it on (docs/idempotency.md, "Stores"). On a
      // cluster it stays on: one write per master for the commands of one turn.
      const client =
        nodes === undefined
          ? new Redis(config.redisUrl, options)
          : new Cluster([...nodes], { lazyConnect: true, enableAutoPipelining: true, redisOptions: options });
      // Without a listener, ioredis prints "[ioredis] Unhandled error event" and a stack per attempt.
      // The stores' own timeouts and policies decide what clients see while Redis is away.
      let lastError: unknown;
      client.on('error', (error: unknown) => {
        lastError = error;
      });
      try {
        // connectTimeout bounds the TCP connection only; a server that accepts and then never
        // answers its ready check is bounded here.
        await within(client.connect(), STORE_CONNECT_TIMEOUT_MS);
      } catch (error) {
        client.disconnect();
        throw new StartupError(`Redis is not reachable at ${host}: ${reasonOf(lastError ?? error)}`);
      }
      closers.push(() => client.quit());
      redis = client;
    }
    return redis;
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
        client: await redisClient(),
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
      ? redisRateLimitStore({ client: await redisClient(), prefix: `${config.storePrefix}:ratelimit:` })
      : memoryRateLimitStore();
  const readinessChecks: ReadinessCheck[] = [];
  if (pool !== undefined) {
    const checked = pool;
    readinessChecks.push({ name: 'postgres', check: () => checked.query('SELECT 1') });
  }
  if (redis !== undefined) {
    const checked = redis;
    readinessChecks.push({ name: 'redis', check: () => checked.ping() });
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
