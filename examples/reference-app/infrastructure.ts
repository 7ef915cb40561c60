import { Redis } from 'ioredis';
import pg from 'pg';
import { type IdempotencyStore, memoryStore, postgresStore, redisStore } from 'rest-conventions/idempotency';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from 'rest-conventions/ratelimit';
import type { Config } from './config.js';

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
      const host = hostOf(config.redisUrl, 'REDIS_URL');
      const client = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: STORE_CONNECT_TIMEOUT_MS,
      });
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
        max: 10,
        connectionTimeoutMillis: STORE_CONNECT_TIMEOUT_MS,
      });
      // An idle client's connection dropping must not crash the process (pg emits it on the pool).
      created.on('error', () => {});
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
      const host = hostOf(config.databaseUrl, 'DATABASE_URL');
      const store = postgresStore({ pool: postgres(), table: `${config.storePrefix}_idempotency` });
      try {
        await within(store.migrate(), STORE_CONNECT_TIMEOUT_MS);
      } catch (error) {
        // Not awaited: ending a pool waits for its connections, and a stalled one may never answer.
        void pool?.end().catch(() => {});
        throw new StartupError(`PostgreSQL (idempotency store) is not usable at ${host}: ${reasonOf(error)}`);
      }
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
