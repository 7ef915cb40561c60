import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createReferenceApp, type StoreOverrides } from '../../examples/reference-app/composition-root.js';
import { configFromEnv, DEV_AUTH_SECRET } from '../../examples/reference-app/config.js';
import { applyMigrations } from '../../examples/reference-app/database/migration-runner.js';
import { dataMigrations } from '../../examples/reference-app/database/migrations.js';
import { postgresDataStores } from '../../examples/reference-app/database/postgres-data-stores.js';
import { connectInfrastructure, type Infrastructure } from '../../examples/reference-app/infrastructure.js';
import { ADAPTERS as ADAPTER_NAMES, type Served, serve } from '../../examples/reference-app/serve.js';
import { signHs256Token } from '../../src/auth/index.js';
import type { Logger } from '../../src/http/types.js';
import { ADAPTERS } from './clients.js';
import { describedApp } from './described-apps.js';
import { dropTablesUnder } from './postgres.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from './services.js';

/** A logger that keeps what it is given, for asserting on it (and keeps test output quiet). */
export function memoryLogger(): Logger & {
  readonly entries: Array<{ level: string; message: string; fields: Record<string, unknown> }>;
} {
  const entries: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  return {
    entries,
    error: (fields, message) => entries.push({ level: 'error', message, fields }),
    warn: (fields, message) => entries.push({ level: 'warn', message, fields }),
  };
}

/**
 * A fresh reference app with the default (in-memory) stores and the development secret. The rate
 * limit is raised so that property tests sending thousands of requests measure what they mean to;
 * the limiter's own tests set `RATE_LIMIT_MAX`.
 */
export function referenceApp(env: NodeJS.ProcessEnv = {}, stores: StoreOverrides = {}) {
  const logger = memoryLogger();
  const config = configFromEnv({ RATE_LIMIT_MAX: '1000000', ...env });
  return { app: describedApp(createReferenceApp(config, logger, stores)), logger };
}

/** A bearer token for the reference app's development secret. */
export async function bearer(sub: string, scope?: string): Promise<string> {
  return `Bearer ${await signHs256Token(DEV_AUTH_SECRET, { sub, ...(scope === undefined ? {} : { scope }) })}`;
}

/**
 * The data stores the reference app's HTTP suite runs on: `memory` always, `postgres` when PostgreSQL
 * is reachable (under `CI=true` it must be). Use with `describe.each`.
 */
export const DATA_STORES: ReadonlyArray<{ readonly dataStore: 'memory' | 'postgres' }> =
  (await serviceAvailable('PostgreSQL'))
    ? [{ dataStore: 'memory' }, { dataStore: 'postgres' }]
    : [{ dataStore: 'memory' }];

/**
 * A fresh reference app on `dataStore`. On `postgres` its tables live under a unique prefix, created
 * by the app's migrations and dropped by `close`, so test files never share rows.
 */
export async function referenceAppOn(
  dataStore: 'memory' | 'postgres',
  env: NodeJS.ProcessEnv = {},
  stores: StoreOverrides = {},
) {
  if (dataStore === 'memory') return { ...referenceApp(env, stores), close: async () => {} };
  const prefix = uniquePrefix('ref').toLowerCase();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  await applyMigrations({ pool, prefix, migrations: dataMigrations(prefix) });
  const built = referenceApp(
    { ...env, STORE_PREFIX: prefix },
    { ...postgresDataStores(pool, prefix), ...stores },
  );
  return {
    ...built,
    close: async () => {
      await dropTablesUnder(prefix, pool);
      await pool.end();
    },
  };
}

/** Every adapter on every data store, for `describe.each`. */
export const APP_MATRIX = ADAPTERS.flatMap(({ adapter, connect }) =>
  DATA_STORES.map(({ dataStore }) => ({ adapter, connect, dataStore })),
);

/** The reference app in this process, on its own stores: see {@link servedReferenceApp}. */
export interface ServedReferenceApp {
  readonly url: string;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly served: Served;
  readonly infrastructure: Infrastructure;
  /** Closes the server, then the stores, each close bounded (2 s). */
  stop(): Promise<void>;
}

/**
 * The reference app as main.ts wires it, in this process: the stores `env` names connected
 * (`connectInfrastructure`), served by node:http on a free loopback port, logging into memory.
 * `stop` bounds the stores' close: a client's QUIT to a Redis Cluster that lost a master may wait
 * for it.
 */
export async function servedReferenceApp(env: NodeJS.ProcessEnv): Promise<ServedReferenceApp> {
  const config = configFromEnv(env);
  const infrastructure = await connectInfrastructure(config);
  const logger = memoryLogger();
  const served = await serve('node', createReferenceApp(config, logger, infrastructure), 0);
  return {
    url: `http://127.0.0.1:${served.port}`,
    logger,
    served,
    infrastructure,
    stop: async () => {
      await served.close();
      await Promise.race([infrastructure.close(), sleep(2_000)]);
    },
  };
}

/**
 * The reference app on memory stores, one instance per adapter, served for the tests of the calling
 * `describe` block: started before them, closed after. `base(adapter)` is that instance's origin.
 */
export function referenceAppOnEveryAdapter(): {
  base(adapter: string): string;
  port(adapter: string): number;
} {
  const servers = new Map<string, Served>();
  beforeAll(async () => {
    for (const adapter of ADAPTER_NAMES) servers.set(adapter, await serve(adapter, referenceApp().app, 0));
  });
  afterAll(async () => {
    for (const served of servers.values()) await served.close();
  });
  const port = (adapter: string) => servers.get(adapter)!.port;
  return { port, base: (adapter) => `http://127.0.0.1:${port(adapter)}` };
}
