import type { Pool } from 'pg';
import { isStorableText } from 'rest-conventions/validation';
import { type RequestScope, requestQueries } from '../database/request-scope.js';
import type { Order, OrderLookup, OrderStore, Payment } from './order-store.js';

interface OrderRow {
  readonly id: string;
  readonly owner_id: string;
  readonly book_id: number;
  readonly quantity: number;
  readonly version: number;
  readonly updated_at: Date;
  readonly deleted_at: Date | null;
}

interface PaymentRow {
  readonly id: string;
  readonly order_id: string;
  readonly discount: string | null;
  readonly created_at: Date;
}

function toPayment(row: PaymentRow): Payment {
  return {
    id: Number(row.id),
    orderId: Number(row.order_id),
    discount: row.discount,
    createdAt: row.created_at,
  };
}

function toOrder(row: OrderRow): Order {
  return {
    id: Number(row.id),
    ownerId: row.owner_id,
    bookId: row.book_id,
    quantity: row.quantity,
    version: row.version,
    updatedAt: row.updated_at,
  };
}

/**
 * Orders in `<prefix>_orders` and their payments in `<prefix>_order_payments` (`database/migrations.ts`). The version column is the ETag's source and
 * PATCH's compare-and-set; a delete keeps the row as a tombstone (`deleted_at`), so a repeated DELETE
 * answers 204 on every instance and after restarts. Writes go through the idempotency transaction
 * when given one.
 */
export class PostgresOrderStore implements OrderStore {
  /** The request's transaction, or the pool. */
  private readonly db: ReturnType<typeof requestQueries>;
  private readonly sql;

  constructor(
    pool: Pool,
    prefix: string,
    private readonly now: () => Date = () => new Date(),
    /** Test-only: runs after the insert, before anything commits (see `Config.testCrash`). */
    private readonly afterInsert: () => void = () => {},
  ) {
    this.db = requestQueries(pool);
    const table = `${prefix}_orders`;
    const payments = `${prefix}_order_payments`;
    const columns = 'id, owner_id, book_id, quantity, version, updated_at, deleted_at';
    this.sql = {
      create: {
        name: `${prefix}_order_create`,
        text: `INSERT INTO ${table} (owner_id, book_id, quantity, updated_at) VALUES ($1, $2, $3, $4)
          RETURNING ${columns}`,
      },
      find: { name: `${prefix}_order_find`, text: `SELECT ${columns} FROM ${table} WHERE id = $1` },
      // No change, no new version: the ETag changes exactly when the representation does.
      update: {
        name: `${prefix}_order_update`,
        text: `UPDATE ${table}
          SET quantity = $3,
              version = CASE WHEN quantity = $3 THEN version ELSE version + 1 END,
              updated_at = CASE WHEN quantity = $3 THEN updated_at ELSE $4 END
          WHERE id = $1 AND version = $2 AND deleted_at IS NULL
          RETURNING ${columns}`,
      },
      delete: {
        name: `${prefix}_order_delete`,
        text: `UPDATE ${table} SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL`,
      },
      byOwner: {
        name: `${prefix}_orders_by_owner`,
        text: `SELECT ${columns} FROM ${table} WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY id`,
      },
      addPayment: {
        name: `${prefix}_payment_add`,
        text: `INSERT INTO ${payments} (order_id, discount, created_at) VALUES ($1, $2, $3)
          RETURNING id, order_id, discount, created_at`,
      },
      findPayment: {
        name: `${prefix}_payment_find`,
        text: `SELECT id, order_id, discount, created_at FROM ${payments} WHERE id = $1 AND order_id = $2`,
      },
    };
  }

  async create(
    input: { readonly ownerId: string; readonly bookId: number; readonly quantity: number },
    request?: RequestScope,
  ): Promise<Order> {
    const db = this.db(request);
    const values = [input.ownerId, input.bookId, input.quantity, this.now()];
    const { rows } = await db.query<OrderRow>({ ...this.sql.create, values });
    this.afterInsert();
    return toOrder(rows[0]!);
  }

  async find(id: number, request?: RequestScope): Promise<OrderLookup> {
    const row = (await this.db(request).query<OrderRow>({ ...this.sql.find, values: [id] })).rows[0];
    if (row === undefined) return { kind: 'absent' };
    if (row.deleted_at !== null) return { kind: 'deleted', ownerId: row.owner_id };
    return { kind: 'live', order: toOrder(row) };
  }

  async delete(id: number): Promise<void> {
    await this.db().query({ ...this.sql.delete, values: [id, this.now()] });
  }

  async updateQuantity(
    id: number,
    expectedVersion: number,
    quantity: number,
    request?: RequestScope,
  ): Promise<Order | undefined> {
    const db = this.db(request);
    const values = [id, expectedVersion, quantity, this.now()];
    const row = (await db.query<OrderRow>({ ...this.sql.update, values })).rows[0];
    return row === undefined ? undefined : toOrder(row);
  }

  async listByOwner(ownerId: string): Promise<readonly Order[]> {
    // An owner id from a path may hold U+0000, which PostgreSQL's text refuses: nobody owns that.
    if (!isStorableText(ownerId)) return [];
    return (await this.db().query<OrderRow>({ ...this.sql.byOwner, values: [ownerId] })).rows.map(toOrder);
  }

  async addPayment(orderId: number, discount: string | null, request?: RequestScope): Promise<Payment> {
    const values = [orderId, discount, this.now()];
    const { rows } = await this.db(request).query<PaymentRow>({ ...this.sql.addPayment, values });
    return toPayment(rows[0]!);
  }

  async findPayment(
    orderId: number,
    paymentId: number,
    request?: RequestScope,
  ): Promise<Payment | undefined> {
    const values = [paymentId, orderId];
    const row = (await this.db(request).query<PaymentRow>({ ...this.sql.findPayment, values })).rows[0];
    return row === undefined ? undefined : toPayment(row);
  }
}
