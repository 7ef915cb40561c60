/**
 * The structural `pg` types a SQL store speaks and a handler writes through (the connection in an
 * idempotency store's transaction, `ctx.var.idempotencyTransaction`). Structural, so that the
 * published declarations do not import `pg` (an optional peer dependency).
 */

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
   * The PostgreSQL store calls this form unless its `preparedStatements` option is false.
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
  /** A `pg` Pool's settings: `max` is its number of connections. */
  readonly options?: { readonly max?: number };
}
