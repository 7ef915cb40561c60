import { isPromise } from '../core/maybe-promise.js';
import type { LayerVariables } from '../http/types.js';
import { databaseUnavailableError } from './errors.js';
import type { IdempotencyAdds } from './middleware.js';
import type { Queryable } from './stores/sql-connection.js';

/**
 * What `pg-pool` rejects a query with when no connection came within `connectionTimeoutMillis`:
 * every connection was busy (the first), or a new one did not finish its handshake (the second).
 */
const NO_CONNECTION_IN_TIME = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
]);

function refusedForWantOfConnection(error: unknown): never {
  if (error instanceof Error && NO_CONNECTION_IN_TIME.has(error.message)) throw databaseUnavailableError();
  throw error;
}

/** The pool's `query`, with a pool timeout answered as {@link databaseUnavailableError}: one per pool. */
const boundedPools = new WeakMap<object, Pick<Queryable, 'query'>>();

function bounded<P extends Queryable>(pool: P): Pick<P, 'query'> {
  let wrapped = boundedPools.get(pool);
  if (wrapped === undefined) {
    const query = pool.query as (...args: unknown[]) => unknown;
    wrapped = {
      query: ((...args: unknown[]) => {
        const pending = query.apply(pool, args);
        // pg's callback form answers nothing: its callback gets the error as it is.
        return isPromise(pending) ? pending.catch(refusedForWantOfConnection) : pending;
      }) as Queryable['query'],
    };
    boundedPools.set(pool, wrapped);
  }
  return wrapped as Pick<P, 'query'>;
}

/**
 * Where a request's queries go on PostgreSQL: the transaction its keyed write's claim opened
 * (`ctx.var.idempotencyTransaction`, with a `transactional` store), else `pool`. Every query of a
 * keyed write, a layer's `load` as much as the handler's, then runs on the one connection the claim
 * took, from claim to completion: a query that took a second connection from the pool would wait for
 * one that a burst of such writes holds, and a full pool would stall every request until its timeout
 * (docs/idempotency.md, "One connection per keyed write").
 *
 * On the pool, a query that gets no connection within the pool's bound (`connectionTimeoutMillis`)
 * rejects with {@link databaseUnavailableError}, a 503 with `Retry-After`, never a 500.
 *
 * @example
 * const db = transactionOrPool(ctx, pool); // a pg Pool
 * const { rows } = await db.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
 */
export function transactionOrPool<P extends Queryable>(
  ctx: { readonly var: LayerVariables } | undefined,
  pool: P,
): Pick<P, 'query'> {
  const transaction = (ctx?.var as IdempotencyAdds | undefined)?.idempotencyTransaction;
  // The client was checked out of the pool the store was given: its `query` is the pool's.
  return transaction === undefined ? bounded(pool) : (transaction as unknown as Pick<P, 'query'>);
}
