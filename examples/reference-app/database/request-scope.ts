import type { Context } from 'rest-conventions/core';

/**
 * The request a store call serves: a handler or a layer passes its `ctx`. A PostgreSQL store runs
 * the call's queries on `transactionOrPool(request, pool)` (docs/idempotency.md, "One connection per
 * keyed write"): in a keyed write's own transaction when its claim opened one, so everything the
 * request reads and writes commits with its idempotency record and never waits for a second pooled
 * connection; on the pool otherwise. The memory stores ignore it.
 */
export type RequestScope = Pick<Context, 'var'>;
