import type { Pool } from 'pg';
import type { BookStore } from '../books/book-store.js';
import { PostgresBookStore } from '../books/postgres-book-store.js';
import type { OrderStore } from '../orders/order-store.js';
import { PostgresOrderStore } from '../orders/postgres-order-store.js';
import { PostgresStandardStore } from '../standards/postgres-standard-store.js';
import type { StandardStore } from '../standards/standard-store.js';
import { PostgresUserStore } from '../users/postgres-user-store.js';
import type { UserStore } from '../users/user-store.js';

/** The app's four data stores. */
export interface DataStores {
  readonly bookStore: BookStore;
  readonly orderStore: OrderStore;
  readonly userStore: UserStore;
  readonly standardStore: StandardStore;
}

/** The app's four data stores on one PostgreSQL pool, tables under `prefix` (migrated first). */
export function postgresDataStores(
  pool: Pool,
  prefix: string,
  options: { readonly afterOrderInsert?: () => void } = {},
): DataStores {
  return {
    bookStore: new PostgresBookStore(pool, prefix),
    orderStore: new PostgresOrderStore(pool, prefix, undefined, options.afterOrderInsert),
    userStore: new PostgresUserStore(pool, prefix),
    standardStore: new PostgresStandardStore(pool, prefix),
  };
}
