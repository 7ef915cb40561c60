import type { Pool } from 'pg';
import type { Context } from 'rest-conventions/core';
import { transactionOrPool } from 'rest-conventions/idempotency';

/**
 * The request a store call serves: a handler or a layer passes its `ctx`. A PostgreSQL store runs
 * the call's queries on `transactionOrPool(request, pool)` (docs/idempotency.md, "One connection per
 * keyed write"): in a keyed write's own transaction when its claim opened one, so everything the
 * request reads and writes commits with its idempotency record and never waits for a second pooled
 * connection; on the pool otherwise. The memory stores ignore it.
 */
export type RequestScope = Pick<Context, 'var'>;

/**
 * What a PostgreSQL store queries for a request: `transactionOrPool(request, pool)`, the request's
 * transaction, or the pool (a connection not free in time: 503, never 500). Each store makes it once.
 *
 * @example const db = requestQueries(pool); await db(request).query(...);
 */
export function requestQueries(pool: Pool): (request?: RequestScope) => Pick<Pool, 'query'> {
  return (request) => transactionOrPool(request, pool);
}
