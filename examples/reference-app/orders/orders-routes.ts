import type { App, Context, Middleware } from 'rest-conventions';
import { requireAuth } from 'rest-conventions/auth';
import { conditional, preconditionFailed, versionEtag } from 'rest-conventions/caching';
import { contextKey, created, json, noContent } from 'rest-conventions/core';
import { dataDocument, defineResourceType, toOne } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { IDEMPOTENCY_TRANSACTION, type IdempotencyStore, idempotency } from 'rest-conventions/idempotency';
import {
  bodyPointer,
  decodeJsonBody,
  integer,
  positiveInteger,
  strictObject,
} from 'rest-conventions/validation';
import type { BookStore } from '../books/book-store.js';
import { numericId } from '../books/books-routes.js';
import type { Order, OrderStore } from './order-store.js';

/** How an order is shown to its owner. */
export const orderResource = defineResourceType<Order, 'bookId' | 'quantity'>({
  type: 'orders',
  id: (order) => order.id,
  attributes: ['bookId', 'quantity'],
  links: (order) => ({ self: `/orders/${order.id}` }),
  relationships: (order) => ({
    book: toOne({ type: 'books', id: String(order.bookId) }, { related: `/books/${order.bookId}` }),
  }),
});

/** The body of `POST /orders` (seed section 4: `bookId`, `quantity`). */
export const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });

function orderDocument(order: Order) {
  return dataDocument(orderResource.toResource(order), { links: { self: `/orders/${order.id}` } });
}

/** Another user's order is indistinguishable from an absent one: always the same 404. */
function notFound(rawId: string): ApiError {
  return new ApiError(404, { detail: `No order with id ${JSON.stringify(rawId.slice(0, 40))}.` });
}

/** The caller's own order, loaded once by the validators and handed to the handler. */
const OWN_ORDER = contextKey<Order>("the caller's order");

/** The body of `PATCH /orders/{id}`: only the quantity can change. */
export const OrderChange = strictObject({ quantity: integer({ min: 1, max: 100 }) });

const privateRevalidated = { scope: 'private', noCache: true } as const;

/**
 * `POST /orders`, `GET`/`PATCH`/`DELETE /orders/{id}`: authenticated, owner-only. Writes accept an
 * `Idempotency-Key`; `PATCH` requires `If-Match` (optimistic concurrency).
 */
export class OrdersRoutes {
  static readonly inject = ['orderStore', 'bookStore', 'idempotencyStore'] as const;

  constructor(
    private readonly orders: OrderStore,
    private readonly books: BookStore,
    private readonly idempotencyStore: IdempotencyStore,
  ) {}

  register(app: App): void {
    const authenticated = [requireAuth()];
    // The caller's own order is loaded first, so no precondition (304, 412, 428) ever answers about
    // someone else's order: they get the same 404 as for one that does not exist.
    const ownOrder: Middleware<Context<{ readonly id: string }>> = async (ctx, next) => {
      ctx.set(OWN_ORDER, await this.ownOrder(ctx));
      return next();
    };
    const validators = (ctx: Context<{ readonly id: string }>) => {
      const order = ctx.get(OWN_ORDER)!;
      return { etag: versionEtag(order.version), lastModified: order.updatedAt };
    };
    app.route({
      method: 'POST',
      path: '/orders',
      use: [...authenticated, idempotency({ store: this.idempotencyStore })],
      handler: async (ctx) => {
        const input = await decodeJsonBody(ctx, { codec: OrderInput, type: 'orders' });
        if ((await this.books.get(input.bookId)) === undefined) {
          throw new ApiError(400, {
            code: 'unknown-book',
            detail: `No book with id ${input.bookId}.`,
            source: { pointer: bodyPointer(ctx, 'bookId') },
          });
        }
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const order = await this.orders.create({ ownerId: ctx.principal!.sub, ...input }, inTransaction);
        return created(`/orders/${order.id}`, orderDocument(order), { etag: versionEtag(order.version) });
      },
    });
    app.route({
      method: 'GET',
      path: '/orders/{id}',
      use: [...authenticated, ownOrder, conditional({ validators, policy: privateRevalidated })],
      handler: async (ctx) => json(200, orderDocument(await this.ownOrder(ctx))),
    });
    app.route({
      method: 'PATCH',
      path: '/orders/{id}',
      use: [
        ...authenticated,
        idempotency({ store: this.idempotencyStore }),
        ownOrder,
        conditional({ validators, requireIfMatch: true }),
      ],
      handler: async (ctx) => {
        const checked = await this.ownOrder(ctx);
        const { quantity } = await decodeJsonBody(ctx, { codec: OrderChange, type: 'orders' });
        // Compare-and-set against the version If-Match was checked against: of two writers that
        // both passed the precondition, only the first write lands; the other gets 412.
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const updated = await this.orders.updateQuantity(
          checked.id,
          checked.version,
          quantity,
          inTransaction,
        );
        if (updated === undefined) throw preconditionFailed();
        return json(200, orderDocument(updated), { etag: versionEtag(updated.version) });
      },
    });
    app.route({
      method: 'DELETE',
      path: '/orders/{id}',
      use: authenticated,
      handler: async (ctx) => {
        const id = numericId(ctx.params.id, 'order');
        const found = await this.orders.find(id);
        const owner =
          found.kind === 'live' ? found.order.ownerId : found.kind === 'deleted' ? found.ownerId : undefined;
        if (owner !== ctx.principal!.sub) throw notFound(ctx.params.id);
        if (found.kind === 'live') await this.orders.delete(id);
        return noContent();
      },
    });
  }

  private async ownOrder(ctx: Context<{ readonly id: string }>): Promise<Order> {
    const loaded = ctx.get(OWN_ORDER);
    if (loaded !== undefined) return loaded;
    const found = await this.orders.find(numericId(ctx.params.id, 'order'));
    if (found.kind !== 'live' || found.order.ownerId !== ctx.principal!.sub) throw notFound(ctx.params.id);
    return found.order;
  }
}
