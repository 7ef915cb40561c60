/** The servers the reference app can be served by (`ADAPTER`, serve.ts). */
export const ADAPTERS = ['node', 'fetch', 'express', 'fastify', 'koa', 'hono'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** pino's levels (`LOG_LEVEL`): the lowest written; `silent` writes nothing. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The reference app's settings, read once from the environment, here and nowhere else in the app
 * (README.md's environment table lists what this reads).
 */
export interface Config {
  readonly port: number;
  /** Which server serves the app (`ADAPTER`, default `node`). */
  readonly adapter: AdapterName;
  /** The logger's lowest level (`LOG_LEVEL`, default `info`). */
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly authSecret: string;
  /** True when AUTH_SECRET was not set and the documented development secret is in use. */
  readonly usingDevSecret: boolean;
  readonly redisUrl: string;
  /**
   * Redis Cluster seed nodes (`REDIS_CLUSTER_NODES=host:port,...`): when set, the Redis stores use
   * the cluster and `REDIS_URL` is not read (docs/deployment.md, "Redis Cluster").
   */
  readonly redisClusterNodes: readonly { readonly host: string; readonly port: number }[] | undefined;
  /**
   * Replicas that must acknowledge a completed idempotency record before its response is sent
   * (`REDIS_WAIT_REPLICAS`; default 1 on a cluster, 0 on one Redis): Redis `WAIT`.
   */
  readonly redisWaitReplicas: number;
  readonly databaseUrl: string;
  /** Where books, users, orders and standards live: `memory` (default) or `postgres` (see docs/deployment.md). */
  readonly dataStore: 'memory' | 'postgres';
  /** Connections in the PostgreSQL pool (`DATABASE_POOL_SIZE`, default 10). */
  readonly databasePoolSize: number;
  /**
   * Test-only (`REFERENCE_APP_TEST_CRASH=after-order-insert`): the process kills itself with SIGKILL
   * right after inserting an order and before its transaction commits, to show that the order and
   * its idempotency record roll back together. Never set it in production.
   */
  readonly testCrash: 'after-order-insert' | undefined;
  /** Where idempotency records live: `memory` (default), `redis` or `postgres`. */
  readonly idempotencyStore: 'memory' | 'redis' | 'postgres';
  /**
   * Budgets of the memory idempotency store in total (`IDEMPOTENCY_MAX_ENTRIES`,
   * `IDEMPOTENCY_MAX_BYTES`); unset: the store's defaults (docs/idempotency.md, "Budgets").
   * The Redis and PostgreSQL stores enforce per-owner budgets only.
   */
  readonly idempotencyLimits: { readonly maxEntries?: number; readonly maxBytes?: number };
  /**
   * The bound on each idempotency store call (`IDEMPOTENCY_STORE_TIMEOUT_MS`, default 2 000): past
   * it the keyed request answers 503 with nothing executed.
   */
  readonly idempotencyStoreTimeoutMs: number;
  /** Namespace of this app's data in shared stores: Redis key prefix, PostgreSQL table prefix. */
  readonly storePrefix: string;
  /** How long a SIGTERM/SIGINT waits for requests in flight before cutting them (`SHUTDOWN_TIMEOUT`, s). */
  readonly shutdownTimeoutSeconds: number;
  /**
   * The origins whose scripts may read the API in a browser (`CORS_ORIGINS`: comma-separated
   * origins such as `https://app.example.com,http://localhost:5173`, or `*`). Default none: which
   * websites may call an API is the deployment's decision, so no origin is trusted until one is named
   * (docs/cors.md).
   */
  readonly corsOrigins: readonly string[] | '*';
  /**
   * OpenTelemetry (docs/observability.md): on when `METRICS_PORT` or any `OTEL_*` variable is set
   * (the SDK reads those itself); `metricsPort` serves a Prometheus scrape endpoint on its own port.
   */
  readonly telemetry: { readonly enabled: boolean; readonly metricsPort: number | undefined };
  /** Every route is limited: `max` requests per `windowSeconds` per caller, kept in `store`. */
  readonly rateLimit: {
    readonly max: number;
    readonly windowSeconds: number;
    readonly store: 'memory' | 'redis';
    /** The bound on each store call (`RATE_LIMIT_TIMEOUT_MS`, default 200), then `onStoreError`. */
    readonly storeTimeoutMs: number;
    /** When the store fails: let requests through (`open`, default) or refuse them with 503 (`closed`). */
    readonly onStoreError: 'open' | 'closed';
  };
}

function storePrefix(value: string | undefined): string {
  const prefix = value ?? 'reference_app';
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new TypeError(`STORE_PREFIX must be lower-case letters, digits and underscores, got ${prefix}`);
  }
  return prefix;
}

/** `host:port,host:port`: the Redis Cluster nodes to connect to first. */
function clusterNodes(value: string | undefined): Config['redisClusterNodes'] {
  if (value === undefined) return undefined;
  const nodes = value.split(',').map((node) => {
    const match = /^([^\s:,]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(node.trim());
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535) {
      throw new TypeError(`REDIS_CLUSTER_NODES must be host:port[,host:port...], got ${node}`);
    }
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return nodes;
}

function nonNegativeInteger(name: string, value: string | undefined, fallback: number): number {
  const parsed = Number(value ?? fallback);
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw new TypeError(`${name} must be a non-negative integer, got ${value}`);
  return parsed;
}

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  const parsed = Number(value ?? fallback);
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new TypeError(`${name} must be a positive integer, got ${value}`);
  return parsed;
}

/** `{ [option]: value }` when the variable is set (a positive integer), `{}` when it is not. */
function optionalPositiveInteger<K extends string>(
  option: K,
  name: string,
  value: string | undefined,
): { [P in K]?: number } {
  return value === undefined ? {} : ({ [option]: positiveInteger(name, value, 1) } as { [P in K]?: number });
}

function choice<const V extends readonly string[]>(
  name: string,
  value: string | undefined,
  allowed: V,
  fallback: V[number],
): V[number] {
  const chosen = value ?? fallback;
  if (!allowed.includes(chosen))
    throw new TypeError(`${name} must be one of ${allowed.join('|')}, got ${chosen}`);
  return chosen;
}

/** Whether to start the OpenTelemetry SDK, and the Prometheus scrape port (`METRICS_PORT`, 1..65535). */
function telemetry(env: NodeJS.ProcessEnv): Config['telemetry'] {
  const port = env.METRICS_PORT;
  const metricsPort = port === undefined ? undefined : Number(port);
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 1 || metricsPort > 65535))
    throw new TypeError(`METRICS_PORT must be 1..65535, got ${port}`);
  const enabled = metricsPort !== undefined || Object.keys(env).some((name) => name.startsWith('OTEL_'));
  return { enabled, metricsPort };
}

/** `*`, or the comma-separated origins (each checked by `cors()` itself, which names a bad one). */
function corsOrigins(value: string | undefined): Config['corsOrigins'] {
  if (value === undefined || value.trim() === '') return [];
  if (value.trim() === '*') return '*';
  return value.split(',').map((origin) => origin.trim());
}

/** Development-only HS256 secret, used when AUTH_SECRET is unset (a warning is logged). */
export const DEV_AUTH_SECRET = 'rest-conventions-development-secret-change-me';

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TypeError(`PORT must be 0..65535, got ${env.PORT}`);
  const redisClusterNodes = clusterNodes(env.REDIS_CLUSTER_NODES);
  const idempotencyStore = choice(
    'IDEMPOTENCY_STORE',
    env.IDEMPOTENCY_STORE,
    ['memory', 'redis', 'postgres'] as const,
    'memory',
  );
  const idempotencyLimits = {
    ...optionalPositiveInteger('maxEntries', 'IDEMPOTENCY_MAX_ENTRIES', env.IDEMPOTENCY_MAX_ENTRIES),
    ...optionalPositiveInteger('maxBytes', 'IDEMPOTENCY_MAX_BYTES', env.IDEMPOTENCY_MAX_BYTES),
  };
  if (idempotencyStore !== 'memory' && Object.keys(idempotencyLimits).length > 0) {
    throw new TypeError(
      'IDEMPOTENCY_MAX_ENTRIES and IDEMPOTENCY_MAX_BYTES size the memory store only (the Redis and PostgreSQL stores have per-owner budgets)',
    );
  }
  return {
    port,
    adapter: choice('ADAPTER', env.ADAPTER, ADAPTERS, 'node'),
    logLevel: choice('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    authSecret: env.AUTH_SECRET ?? DEV_AUTH_SECRET,
    usingDevSecret: env.AUTH_SECRET === undefined,
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisClusterNodes,
    redisWaitReplicas: nonNegativeInteger(
      'REDIS_WAIT_REPLICAS',
      env.REDIS_WAIT_REPLICAS,
      redisClusterNodes === undefined ? 0 : 1,
    ),
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    dataStore: choice('DATA_STORE', env.DATA_STORE, ['memory', 'postgres'] as const, 'memory'),
    testCrash:
      env.REFERENCE_APP_TEST_CRASH === undefined
        ? undefined
        : choice(
            'REFERENCE_APP_TEST_CRASH',
            env.REFERENCE_APP_TEST_CRASH,
            ['after-order-insert'] as const,
            'after-order-insert',
          ),
    databasePoolSize: positiveInteger('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 10),
    idempotencyStore,
    idempotencyLimits,
    idempotencyStoreTimeoutMs: positiveInteger(
      'IDEMPOTENCY_STORE_TIMEOUT_MS',
      env.IDEMPOTENCY_STORE_TIMEOUT_MS,
      2_000,
    ),
    storePrefix: storePrefix(env.STORE_PREFIX),
    shutdownTimeoutSeconds: positiveInteger('SHUTDOWN_TIMEOUT', env.SHUTDOWN_TIMEOUT, 10),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    telemetry: telemetry(env),
    rateLimit: {
      // Generous for interactive use and tests; a burst of `max` is allowed, then `max` per window.
      max: positiveInteger('RATE_LIMIT_MAX', env.RATE_LIMIT_MAX, 1000),
      windowSeconds: positiveInteger('RATE_LIMIT_WINDOW', env.RATE_LIMIT_WINDOW, 60),
      store: choice('RATE_LIMIT_STORE', env.RATE_LIMIT_STORE, ['memory', 'redis'] as const, 'memory'),
      storeTimeoutMs: positiveInteger('RATE_LIMIT_TIMEOUT_MS', env.RATE_LIMIT_TIMEOUT_MS, 200),
      onStoreError: choice(
        'RATE_LIMIT_ON_STORE_ERROR',
        env.RATE_LIMIT_ON_STORE_ERROR,
        ['open', 'closed'] as const,
        'open',
      ),
    },
  };
}
