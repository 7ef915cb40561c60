import type { RequestScope } from '../database/request-scope.js';
import { IdTable } from '../id-table.js';

/** An order as stored. */
export interface Order {
  readonly id: number;
  readonly ownerId: string;
  readonly bookId: number;
  readonly quantity: number;
  /** Increments on every change; the ETag is derived from it. */
  readonly version: number;
  readonly updatedAt: Date;
}

/** A payment of an order (`POST /orders/{id}/payments`): its order's, with the discount it applied. */
export interface Payment {
  readonly id: number;
  readonly orderId: number;
  /** The discount code the payment applied, `null` for none. */
  readonly discount: string | null;
  readonly createdAt: Date;
}

/** What a lookup can find: the order, a tombstone left by a delete, or nothing. */
export type OrderLookup =
  | { readonly kind: 'live'; readonly order: Order }
  | { readonly kind: 'deleted'; readonly ownerId: string }
  | { readonly kind: 'absent' };

export interface OrderStore {
  create(
    input: {
      readonly ownerId: string;
      readonly bookId: number;
      readonly quantity: number;
    },
    request?: RequestScope,
  ): Promise<Order>;
  /** `request`: a keyed write's layers load through its transaction (see `RequestScope`). */
  find(id: number, request?: RequestScope): Promise<OrderLookup>;
  /** Delete and leave a tombstone, so a repeated DELETE by the owner still answers 204. */
  delete(id: number): Promise<void>;
  /** Orders of one owner, ordered by id. */
  listByOwner(ownerId: string): Promise<readonly Order[]>;
  /**
   * Change the quantity only if the order is still at `expectedVersion` (compare-and-set), so two
   * writers that both passed `If-Match` cannot both win. `undefined` when the version moved on.
   */
  updateQuantity(
    id: number,
    expectedVersion: number,
    quantity: number,
    request?: RequestScope,
  ): Promise<Order | undefined>;
  /** Record a payment of the order (owned, live: the route checked both). */
  addPayment(orderId: number, discount: string | null, request?: RequestScope): Promise<Payment>;
  /** One payment of the order, `undefined` when that order has no such payment. */
  findPayment(orderId: number, paymentId: number, request?: RequestScope): Promise<Payment | undefined>;
}

/** The embedded default store. */
export class MemoryOrderStore implements OrderStore {
  private readonly orders = new IdTable<Order>();
  private readonly tombstones = new Map<number, string>();
  private readonly payments = new IdTable<Payment>();
  private nextId = 1;
  private nextPaymentId = 1;

  constructor(private readonly now: () => Date = () => new Date()) {}

  async create(input: {
    readonly ownerId: string;
    readonly bookId: number;
    readonly quantity: number;
  }): Promise<Order> {
    const order: Order = { id: this.nextId++, ...input, version: 1, updatedAt: this.now() };
    this.orders.set(order.id, order);
    return order;
  }

  async find(id: number): Promise<OrderLookup> {
    const order = this.orders.get(id);
    if (order !== undefined) return { kind: 'live', order };
    const ownerId = this.tombstones.get(id);
    return ownerId === undefined ? { kind: 'absent' } : { kind: 'deleted', ownerId };
  }

  async delete(id: number): Promise<void> {
    const order = this.orders.get(id);
    if (order === undefined) return;
    this.orders.delete(id);
    this.tombstones.set(id, order.ownerId);
  }

  async updateQuantity(id: number, expectedVersion: number, quantity: number): Promise<Order | undefined> {
    const current = this.orders.get(id);
    if (current === undefined || current.version !== expectedVersion) return undefined;
    // No change, no new version: the ETag changes exactly when the representation does.
    if (current.quantity === quantity) return current;
    const next: Order = { ...current, quantity, version: current.version + 1, updatedAt: this.now() };
    this.orders.set(id, next);
    return next;
  }

  async listByOwner(ownerId: string): Promise<readonly Order[]> {
    return [...this.orders.values()].filter((order) => order.ownerId === ownerId);
  }

  async addPayment(orderId: number, discount: string | null): Promise<Payment> {
    const payment: Payment = { id: this.nextPaymentId++, orderId, discount, createdAt: this.now() };
    this.payments.set(payment.id, payment);
    return payment;
  }

  async findPayment(orderId: number, paymentId: number): Promise<Payment | undefined> {
    const payment = this.payments.get(paymentId);
    return payment?.orderId === orderId ? payment : undefined;
  }
}
