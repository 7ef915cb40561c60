import { createHash } from 'node:crypto';
import { type Context, contextKey } from '../core/types.js';
import {
  ANONYMOUS_OWNER,
  RECORD_OVERHEAD_BYTES,
  readStoreLimits,
  recordBytes,
  type StoreLimits,
} from './limits.js';
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
  /**
   * A named statement: `pg` prepares it once per connection and then only binds and executes it.
   * The store calls this form unless `preparedStatements` is false ({@link PostgresStoreOptions}).
   */
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    statement: NamedStatement,
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A query with a name under which the server keeps it prepared (`pg`'s `QueryConfig` fits). */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
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

/**
 * Options of {@link postgresStore}. Of the budgets ({@link StoreLimits}) the per-owner ones are
 * enforced (`ownerMaxEntries`, `ownerMaxBytes`); `maxEntries` and `maxBytes` are not (counting a
 * large table on every claim costs too much): the table is bounded by its owners' quotas, and
 * `deleteExpired` reclaims rows.
 */
export interface PostgresStoreOptions extends Pick<StoreLimits, 'ownerMaxEntries' | 'ownerMaxBytes'> {
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
  /**
   * Send the store's statements as named prepared statements (default true): the server parses and
   * plans each once per connection instead of on every request, a third of the claim's cost in
   * PostgreSQL CPU (docs/idempotency.md, "PostgreSQL"). Set false behind a pooler that cannot keep
   * prepared statements (PgBouncer in transaction mode before 1.21), or with a `pool` that takes
   * only the `(text, values)` form.
   */
  readonly preparedStatements?: boolean;
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
 * completed; a row past it counts as absent and is taken over by the next claim. `owner` and `bytes`
 * (as counted by `recordBytes`) serve the per-owner quota; the DDL adds them to an older table.
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
  body        bytea,
  owner       text NOT NULL DEFAULT '',
  bytes       integer NOT NULL DEFAULT 0
);
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT '';
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS bytes integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);
CREATE INDEX IF NOT EXISTS ${table.replace('.', '_')}_owner ON ${table} (owner, expires_at);`;
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
 * statement (the live record, the owner's usage and an `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * expired`), and every later write is fenced by the claim's token. Per owner at most
 * `ownerMaxEntries` live records and `ownerMaxBytes` (defaults 1 000 and 4 MiB): past them a claim
 * is refused (`full`), never by dropping a live record. Concurrent claims of one owner can each
 * see room, so the quota may be passed by the owner's concurrent claims. The application passes its own `pg` pool; no `pg` type is imported.
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
  const now = () => Math.floor((options.now ?? Date.now)());
  const limits = readStoreLimits('postgresStore', options, {
    maxEntries: Number.MAX_SAFE_INTEGER,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });

  const sql = statements({
    // One round trip: the live record under the key, the owner's live usage, and the insert (or the
    // takeover of an expired row) when there is no live record and the owner's quota has room.
    claim: `WITH existing AS (
        SELECT state, fingerprint, status, headers::text AS headers, body FROM ${table}
        WHERE scope_key = $1 AND expires_at > $4::bigint
      ), usage AS (
        SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS earliest
        FROM ${table} WHERE owner = $6 AND expires_at > $4::bigint
      ), inserted AS (
        INSERT INTO ${table} AS r (scope_key, fingerprint, token, state, expires_at, owner, bytes)
        SELECT $1, $2, $3, 'in-progress', $4::bigint + $5::bigint, $6, $7::int FROM usage
        WHERE NOT EXISTS (SELECT 1 FROM existing)
          AND usage.entries < $8::bigint AND usage.bytes + $7::int <= $9::bigint
        ON CONFLICT (scope_key) DO UPDATE
          SET fingerprint = excluded.fingerprint, token = excluded.token, state = 'in-progress',
              expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL,
              owner = excluded.owner, bytes = excluded.bytes
          WHERE r.expires_at <= $4::bigint
        RETURNING r.token
      )
      SELECT (SELECT token FROM inserted) AS token, e.state, e.fingerprint, e.status, e.headers, e.body,
        u.entries::int AS entries, u.bytes::bigint::text AS bytes, u.earliest::text AS earliest
      FROM usage u LEFT JOIN existing e ON true`,
    renew: `UPDATE ${table} SET expires_at = $3::bigint + $4::bigint
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    complete: `UPDATE ${table}
      SET state = 'completed', expires_at = $3::bigint + $4::bigint, status = $5, headers = $6::jsonb, body = $7,
        bytes = bytes + $8::int
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    release: `DELETE FROM ${table}
      WHERE scope_key = $1 AND token = $2 AND state = 'in-progress' AND expires_at > $3::bigint`,
    deleteExpired: `DELETE FROM ${table} WHERE expires_at <= $1::bigint`,
  });
  const prepared = options.preparedStatements ?? true;
  const run = <Row extends Record<string, unknown> = Record<string, unknown>>(
    db: Queryable,
    statement: Statement,
    values: unknown[],
  ) =>
    prepared
      ? db.query<Row>({ name: statement.name, text: statement.text, values })
      : db.query<Row>(statement.text, values);

  const complete = async (
    db: Queryable,
    key: string,
    token: string,
    response: StoredResponse,
    retentionMs: number,
  ): Promise<boolean> => {
    const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
    const params = [
      key,
      token,
      now(),
      Math.ceil(retentionMs),
      response.status,
      JSON.stringify(response.headers),
      body,
      recordBytes('', '', response) - RECORD_OVERHEAD_BYTES,
    ];
    const result = await run(db, sql.complete, params);
    return result.rowCount === 1;
  };

  const store: PostgresIdempotencyStore = {
    table,
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER): Promise<ClaimOutcome> {
      const bytes = recordBytes(key, fingerprint);
      // A row inserted by a concurrent claim after this statement's snapshot: claim again.
      for (;;) {
        const at = now();
        const token = newToken();
        const { rows } = await run<ClaimRow>(pool, sql.claim, [
          key,
          fingerprint,
          token,
          at,
          Math.ceil(leaseMs),
          owner,
          bytes,
          limits.ownerMaxEntries,
          limits.ownerMaxBytes,
        ]);
        const row = rows[0] as ClaimRow;
        if (row.token === token) return { kind: 'claimed', token };
        if (row.state !== null) {
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
        if (row.entries >= limits.ownerMaxEntries || Number(row.bytes) + bytes > limits.ownerMaxBytes) {
          const earliest = row.earliest === null ? at + 1 : Number(row.earliest);
          return { kind: 'full', scope: 'owner', retryAfterMs: Math.max(1, earliest - at) };
        }
      }
    },
    async renew(key, token, leaseMs) {
      return (await run(pool, sql.renew, [key, token, now(), Math.ceil(leaseMs)])).rowCount === 1;
    },
    complete: (key, token, response, retentionMs) => complete(pool, key, token, response, retentionMs),
    async release(key, token) {
      return (await run(pool, sql.release, [key, token, now()])).rowCount === 1;
    },
    async migrate() {
      await pool.query(idempotencyTableDdl(table));
    },
    async deleteExpired() {
      return (await run(pool, sql.deleteExpired, [now()])).rowCount ?? 0;
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

type ClaimRow = {
  readonly token: string | null;
  readonly state: string | null;
  readonly fingerprint: string | null;
  readonly entries: number;
  readonly bytes: string;
  readonly earliest: string | null;
  readonly status: number | null;
  readonly headers: string | null;
  readonly body: Buffer | null;
};

/** A statement of the store: its text, and the name it is prepared under. */
interface Statement {
  readonly name: string;
  readonly text: string;
}

/**
 * Names each statement after a hash of its text: the same name for the same text in every store on
 * one pool (`pg` refuses one name for two texts), and short enough for PostgreSQL's 63-byte
 * identifiers whatever the table's name.
 */
function statements<K extends string>(texts: Record<K, string>): Record<K, Statement> {
  const named = {} as Record<K, Statement>;
  for (const [key, text] of Object.entries<string>(texts)) {
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
    named[key as K] = { name: `rc_idempotency_${digest}`, text };
  }
  return named;
}

function isPool(value: PostgresStoreOptions['pool']): value is ConnectionPool {
  return (
    typeof (value as ConnectionPool).connect === 'function' &&
    typeof (value as ConnectionPool).totalCount === 'number'
  );
}
