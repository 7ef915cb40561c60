import type { StoreLimits } from '../limits.js';
import type { IdempotencyStore } from '../store.js';

// The structural `pg` types of the PostgreSQL store, its options and what it answers.

/**
 * Anything that runs a parameterized query the way `pg` does: a `pg` Pool, Client or PoolClient fits.
 * Structural, so that the published declarations do not import `pg` (an optional peer dependency).
 */
export interface Queryable {
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<QueryResult<Row>>;
  /**
   * A named statement: `pg` prepares it once per connection and then only binds and executes it.
   * The store calls this form unless `preparedStatements` is false ({@link PostgresIdempotencyStoreOptions}).
   */
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    statement: NamedStatement,
  ): Promise<QueryResult<Row>>;
}

/** What a query answers (`pg`'s `QueryResult` fits). */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
  /** The command tag's verb: a `COMMIT` of an aborted transaction answers `ROLLBACK`. */
  command?: string;
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
  /**
   * True on a `pg` client made with `pipeline: true` (node-postgres's pipelining): it sends a query
   * without waiting for the answer to the one before. The transactional store then sends `BEGIN`
   * with the claim and the completion with `COMMIT`, two round trips fewer per keyed write.
   */
  readonly pipeline?: boolean;
  /** `pg` clients are event emitters: the store listens to `error` while it holds one. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pool of connections (a `pg` Pool fits). */
export interface ConnectionPool extends Queryable {
  connect(): Promise<PooledConnection>;
  readonly totalCount: number;
}

/**
 * Options of {@link postgresIdempotencyStore}. Of the budgets ({@link StoreLimits}) the per-owner ones are
 * enforced (`ownerMaxEntries`, `ownerMaxBytes`); `maxEntries` and `maxBytes` are not (counting a
 * large table on every claim costs too much): the table is bounded by its owners' quotas, and
 * `deleteExpired` reclaims rows.
 */
export interface PostgresIdempotencyStoreOptions
  extends Pick<StoreLimits, 'ownerMaxEntries' | 'ownerMaxBytes'> {
  /** A `pg` Pool (or Client) the application created; the store never closes it. */
  readonly pool: Queryable | ConnectionPool;
  /** Table name, optionally schema-qualified (default `idempotency_records`). */
  readonly table?: string;
  /**
   * Claim in a transaction, run the handler in it with its client as `ctx.var.idempotencyTransaction`,
   * and complete the record in it: the claim, the handler's writes
   * and the record commit or roll back together, in one commit (docs/idempotency.md, "PostgreSQL:
   * the record in the handler's transaction"). Needs a `Pool`, and the request's context passed to
   * `claim` (the middleware does); a claim without it is made outside. Default false.
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
