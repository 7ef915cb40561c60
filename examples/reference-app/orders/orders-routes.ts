import type { App, Context } from 'rest-conventions';
import { requireAuth } from 'rest-conventions/auth';
import { created, json, noContent } from 'rest-conventions/core';
import { dataDocument, defineResourceType, toOne } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
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

/** `POST /orders`, `GET /orders/{id}`, `DELETE /orders/{id}`: authenticated, owner-only. */
export class OrdersRoutes {
  static readonly inject = ['orderStore', 'bookStore'] as const;

  constructor(
    private readonly orders: OrderStore,
    private readonly books: BookStore,
  ) {}

  register(app: App): void {
    const authenticated = [requireAuth()];
    app.route({
      method: 'POST',
      path: '/orders',
      use: authenticated,
      handler: async (ctx) => {
        const input = await decodeJsonBody(ctx, { codec: OrderInput, type: 'orders' });
        if ((await this.books.get(input.bookId)) === undefined) {
          throw new ApiError(400, {
            code: 'unknown-book',
            detail: `No book with id ${input.bookId}.`,
            source: { pointer: bodyPointer(ctx, 'bookId') },
          });
        }
        const order = await this.orders.create({ ownerId: ctx.principal!.sub, ...input });
        return created(`/orders/${order.id}`, orderDocument(order));
      },
    });
    app.route({
      method: 'GET',
      path: '/orders/{id}',
      use: authenticated,
      handler: async (ctx) => json(200, orderDocument(await this.ownOrder(ctx))),
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
    const found = await this.orders.find(numericId(ctx.params.id, 'order'));
    if (found.kind !== 'live' || found.order.ownerId !== ctx.principal!.sub) throw notFound(ctx.params.id);
    return found.order;
  }
}
