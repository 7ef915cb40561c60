import type { StoreLimits } from '../limits.js';
import type { ConnectionPool, Queryable } from '../sql-connection.js';
import type { IdempotencyStore } from '../store.js';

export type {
  ConnectionPool,
  NamedStatement,
  PooledConnection,
  Queryable,
  QueryResult,
} from '../sql-connection.js';

// The PostgreSQL store's options and what it answers; the connection types are shared (sql-connection.ts).

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
   * the record in the handler's transaction"). Needs a `Pool`, and a claim made `withTransaction`
   * (the middleware does); a claim without it is made outside. Default false.
   */
  readonly transactional?: boolean;
  /**
   * With `transactional`: the claim transactions one owner may hold open at once (default half the
   * pool's connections, at least one). One owner's burst of keyed writes then leaves the rest of the
   * pool to everyone else; its further claims wait their turn within `storeTimeoutMs`
   * (docs/idempotency.md, "One connection per keyed write").
   */
  readonly ownerMaxTransactions?: number;
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
