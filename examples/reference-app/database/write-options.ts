import type { PoolClient } from 'pg';

/**
 * Where a store write runs. `transaction` is the client of the transaction the idempotency store
 * opened (`IDEMPOTENCY_TRANSACTION`, docs/idempotency.md): a store on the same database writes through
 * it, so the write and its idempotency record commit or roll back together; other stores ignore it.
 */
export interface WriteOptions {
  readonly transaction?: PoolClient | undefined;
}
