import { type Context, contextKey } from '../core/types.js';
import {
  type ClaimOutcome,
  type IdempotencyStore,
  newToken,
  type StoredResponse,
  type StoreTransaction,
} from './store.js';

/**
 * Anything that runs a parameterized query the way `pg` does: a `pg` Pool, Client or PoolClient fits.
 * Structural, so that the published declarations do not import `pg` (an optional peer dependency).
 */
export interface Queryable {
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A connection checked out of a pool (a `pg` PoolClient fits): `release(true)` destroys it. */
export interface PooledConnection extends Queryable {
  release(destroy?: boolean): void;
}

/** A pool of connections (a `pg` Pool fits). */
export interface ConnectionPool extends Queryable {
  connect(): Promise<PooledConnection>;
  readonly totalCount: number;
}

export interface PostgresStoreOptions {
  /** A `pg` Pool (or Client) the application created; the store never closes it. */
  readonly pool: Queryable | ConnectionPool;
  /** Table name, optionally schema-qualified (default `idempotency_records`). */
  readonly table?: string;
  /**
   * Run the handler inside a transaction whose client is under {@link IDEMPOTENCY_TRANSACTION}, and
   * write the record in that same transaction: the handler's writes and the record commit or roll
   * back together. Needs a `Pool`. Default false.
   */
  readonly transactional?: boolean;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/** A PostgreSQL {@link IdempotencyStore}, with the table DDL and maintenance helpers. */
export interface PostgresIdempotencyStore extends IdempotencyStore {
  /** The table name in use. */
  readonly table: string;
  /** Create the table and its index if they do not exist ({@link idempotencyTableDdl}). */
  migrate(): Promise<void>;
  /** Delete records whose lease or retention ran out; returns how many. Run it periodically. */
  deleteExpired(): Promise<number>;
}

/**
 * The transaction client a handler writes with when the store is `transactional`: its writes and
 * the idempotency record commit together. Absent when the request carries no key.
 *
 * @example
 * const db = ctx.get(IDEMPOTENCY_TRANSACTION) ?? pool;
 * await db.query('INSERT INTO orders ...');
 */
export const IDEMPOTENCY_TRANSACTION = contextKey<PooledConnection>('idempotency transaction');

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(?:\.[a-z_][a-z0-9_]{0,62})?$/;

/**
 * The DDL of the records table: one row per scoped key (the primary key makes the claim atomic).
 * `expires_at` (ms since the epoch) is the lease end while in progress and the retention end once
 * completed; a row past it counts as absent and is taken over by the next claim.
 *
 * @example
 * await pool.query(idempotencyTableDdl('idempotency_records'));
 */
export function idempotencyTableDdl(table = 'idempotency_records'): string {
  checkTable(table);
  const index = `${table.replace('.', '_')}_expires_at`;
  return `CREATE TABLE IF NOT EXISTS ${table} (
  scope_key   text PRIMARY KEY,
  fingerprint text NOT NULL,
  token       text NOT NULL,
  state       text NOT NULL CHECK (state IN ('in-progress', 'completed')),
  expires_at  bigint NOT NULL,
  status      integer,
  headers     jsonb,
  body        bytea
);
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);`;
}

function checkTable(table: string): void {
  if (!IDENTIFIER.test(table)) {
    throw new TypeError(
      `postgresStore: table must be a lower-case SQL identifier (schema.table allowed), got ${table}`,
    );
  }
}

/**
 * A PostgreSQL {@link IdempotencyStore}, safe with several app instances: the claim is one
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE expired`, and every later write is fenced by the claim's
 * token. The application passes its own `pg` pool; no `pg` type is imported.
 *
 * @example
 * const store = postgresStore({ pool, transactional: true });
 * await store.migrate();
 */
export function postgresStore(options: PostgresStoreOptions): PostgresIdempotencyStore {
  const { pool } = options;
  if (pool === null || typeof pool !== 'object' || typeof pool.query !== 'function') {
    throw new TypeError('postgresStore: `pool` must be a pg Pool or Client');
  }
  const table = options.table ?? 'idempotency_records';
  checkTable(table);
  const transactional = options.transactional ?? false;
  if (transactional && !isPool(pool)) throw new TypeError('postgresStore: `transactional` needs a pg Pool');
  const now = options.now ?? Date.now;

  const sql = {
    claim: `INSERT INTO ${table} AS r (scope_key, fingerprint, token, state, expires_at)
      VALUES ($1, $2, $3, 'in-progress', $4::bigint + $5::bigint)
      ON CONFLICT (scope_key) DO UPDATE
        SET fingerprint = excluded.fingerprint, token = excluded.token, state = 'in-progress',
            expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL
        WHERE r.expires_at <= $4::bigint
      RETURNING r.token`,
    find: `SELECT state, fingerprint, status, headers::text AS headers, body FROM ${table}
      WHERE scope_key = $1 AND expires_at > $2::bigint`,
    renew: `UPDATE ${table} SET expires_at = $3::bigint + $4::bigint
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    complete: `UPDATE ${table}
      SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5, headers = $6::jsonb, body = $7
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    release: `DELETE FROM ${table}
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    deleteExpired: `DELETE FROM ${table} WHERE expires_at <= $1::bigint`,
  };

  const complete = async (
    db: Queryable,
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> => {
    const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
    const params = [key, token, now(), retentionMs, response.status, JSON.stringify(response.headers), body];
    const result = await db.query(sql.complete, params);
    return result.rowCount === 1;
  };

  const store: PostgresIdempotencyStore = {
    table,
    async claim(key, fingerprint, leaseMs): Promise<ClaimOutcome> {
      // A row can expire or be released between the two statements; then claim again.
      for (;;) {
        const at = now();
        const token = newToken();
        const inserted = await pool.query(sql.claim, [key, fingerprint, token, at, leaseMs]);
        if (inserted.rowCount === 1) return { kind: 'claimed', token };
        const found = await pool.query<RecordRow>(sql.find, [key, at]);
        const row = found.rows[0];
        if (row === undefined) continue;
        if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (row.state !== 'completed') return { kind: 'in-progress' };
        return {
          kind: 'completed',
          response: {
            status: row.status ?? 500,
            headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
            body: new Uint8Array(row.body ?? Buffer.alloc(0)),
          },
        };
      }
    },
    async renew(key, token, leaseMs) {
      return (await pool.query(sql.renew, [key, token, now(), leaseMs])).rowCount === 1;
    },
    complete: (key, token, response, retentionMs) => complete(pool, key, token, response, retentionMs),
    async release(key, token) {
      return (await pool.query(sql.release, [key, token, now()])).rowCount === 1;
    },
    async migrate() {
      await pool.query(idempotencyTableDdl(table));
    },
    async deleteExpired() {
      return (await pool.query(sql.deleteExpired, [now()])).rowCount ?? 0;
    },
  };

  if (transactional) {
    store.begin = async (ctx: Context): Promise<StoreTransaction> => {
      const client = await (pool as ConnectionPool).connect();
      try {
        await client.query('BEGIN');
      } catch (error) {
        client.release(true);
        throw error;
      }
      ctx.set(IDEMPOTENCY_TRANSACTION, client);
      let open = true;
      const end = async (statement: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
        if (!open) return;
        open = false;
        try {
          await client.query(statement);
          client.release();
        } catch (error) {
          // A connection in an unknown state is destroyed, never reused.
          client.release(true);
          throw error;
        }
      };
      return {
        complete: (key, token, response, retentionMs) => complete(client, key, token, response, retentionMs),
        commit: () => end('COMMIT'),
        rollback: () => end('ROLLBACK'),
      };
    };
  }
  return store;
}

type RecordRow = {
  readonly state: string;
  readonly fingerprint: string;
  readonly status: number | null;
  readonly headers: string | null;
  readonly body: Buffer | null;
};

function isPool(value: PostgresStoreOptions['pool']): value is ConnectionPool {
  return (
    typeof (value as ConnectionPool).connect === 'function' &&
    typeof (value as ConnectionPool).totalCount === 'number'
  );
}
