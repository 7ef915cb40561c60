import type { PoolClient } from 'pg';
import type { PooledConnection } from 'rest-conventions/idempotency';

/**
 * Where a store write runs. `transaction` is the client of the transaction the idempotency store
 * opened (`ctx.var.idempotencyTransaction`, docs/idempotency.md): a store on the same database writes through
 * it, so the write and its idempotency record commit or roll back together; other stores ignore it.
 */
export interface WriteOptions {
  readonly transaction?: PooledConnection | undefined;
}

/**
 * The transaction's client as `pg` typed it. The idempotency store only knows it structurally; it is
 * the `PoolClient` this app's own `pg` pool handed out (see `infrastructure.ts`), so named prepared
 * statements can run through it.
 */
export function pgTransaction(options: WriteOptions): PoolClient | undefined {
  return options.transaction as PoolClient | undefined;
}
