import { conditional, PRIVATE_REVALIDATED, preconditionFailed, versionEtag } from 'rest-conventions/caching';
import { type Context, created, defineRoute, json, noContent } from 'rest-conventions/core';
import { dataDocument, defineResourceType, toOne } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { IDEMPOTENCY_TRANSACTION, type IdempotencyStore, idempotency } from 'rest-conventions/idempotency';
import { bodyPointer, integer, positiveInteger, strictObject } from 'rest-conventions/validation';
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

/** The body of `POST /orders` (`bookId`, `quantity`). */
export const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });

function orderDocument(order: Order) {
  return dataDocument(orderResource.toResource(order), { links: { self: `/orders/${order.id}` } });
}

/** Another user's order is indistinguishable from an absent one: always the same 404. */
function notFound(rawId: string): ApiError {
  return new ApiError(404, { detail: `No order with id ${JSON.stringify(rawId.slice(0, 40))}.` });
}

/** The body of `PATCH /orders/{id}`: only the quantity can change. */
export const OrderChange = strictObject({ quantity: integer({ min: 1, max: 100 }) });

export interface OrdersDeps {
  readonly orderStore: OrderStore;
  readonly bookStore: BookStore;
  readonly idempotencyStore: IdempotencyStore;
}

/**
 * `POST /orders`, `GET`/`PATCH`/`DELETE /orders/{id}`: authenticated, owner-only. Writes accept an
 * `Idempotency-Key`; `PATCH` requires `If-Match` (optimistic concurrency).
 */
export function ordersRoutes(deps: OrdersDeps) {
  const { orderStore: orders, bookStore: books, idempotencyStore } = deps;
  const ownOrder = async (ctx: Context<{ readonly id: string }>): Promise<Order> => {
    const found = await orders.find(numericId(ctx.params.id, 'order'));
    if (found.kind !== 'live' || found.order.ownerId !== ctx.principal?.sub) throw notFound(ctx.params.id);
    return found.order;
  };
  // The caller's own order is loaded first, so no precondition (304, 412, 428) ever answers about
  // someone else's order: they get the same 404 as for one that does not exist.
  const validators = (_ctx: Context, order: Order) => ({
    etag: versionEtag(order.version),
    lastModified: order.updatedAt,
  });
  const readable = conditional({ load: ownOrder, validators, policy: PRIVATE_REVALIDATED });
  const writable = conditional({ load: ownOrder, validators, requireIfMatch: true });
  // DELETE: the caller's order, live or already deleted (a repeated DELETE is 204 again). An
  // If-Match is honoured (412 when stale, or when the order is gone); without one the delete is
  // unconditional: it overwrites nobody's change.
  const ownLiveOrDeleted = async (ctx: Context<{ readonly id: string }>) => {
    const found = await orders.find(numericId(ctx.params.id, 'order'));
    const owner =
      found.kind === 'live' ? found.order.ownerId : found.kind === 'deleted' ? found.ownerId : undefined;
    if (owner !== ctx.principal?.sub) throw notFound(ctx.params.id);
    return found.kind === 'live' ? found.order : undefined;
  };
  const deletable = conditional({
    load: ownLiveOrDeleted,
    validators: (ctx: Context, order: Order | undefined) =>
      order === undefined ? undefined : validators(ctx, order),
  });
  return [
    defineRoute({
      method: 'POST',
      path: '/orders',
      auth: 'principal',
      body: { codec: OrderInput, type: 'orders' },
      responses: {
        201: {
          description: 'The order created',
          body: 'resource',
          headers: { location: { description: 'The new order' } },
        },
      },
      use: [idempotency({ store: idempotencyStore })],
      handler: async (ctx) => {
        const input = ctx.body;
        if ((await books.get(input.bookId)) === undefined) {
          throw new ApiError(400, {
            code: 'unknown-book',
            detail: `No book with id ${input.bookId}.`,
            source: { pointer: bodyPointer(ctx, 'bookId') },
          });
        }
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const order = await orders.create({ ownerId: ctx.principal.sub, ...input }, inTransaction);
        return created(`/orders/${order.id}`, orderDocument(order), { etag: versionEtag(order.version) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/orders/{id}',
      auth: 'principal',
      responses: { 200: { description: "One of the caller's orders", body: 'resource' } },
      use: [readable],
      handler: (ctx) => json(200, orderDocument(readable.entity(ctx))),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/orders/{id}',
      auth: 'principal',
      body: { codec: OrderChange, type: 'orders' },
      responses: { 200: { description: 'The order changed', body: 'resource' } },
      use: [idempotency({ store: idempotencyStore }), writable],
      handler: async (ctx) => {
        const checked = writable.entity(ctx);
        // Compare-and-set against the version If-Match was checked against: of two writers that
        // both passed the precondition, only the first write lands; the other gets 412.
        const inTransaction = { transaction: ctx.get(IDEMPOTENCY_TRANSACTION) };
        const updated = await orders.updateQuantity(
          checked.id,
          checked.version,
          ctx.body.quantity,
          inTransaction,
        );
        if (updated === undefined) throw preconditionFailed();
        return json(200, orderDocument(updated), { etag: versionEtag(updated.version) });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/orders/{id}',
      auth: 'principal',
      responses: { 204: { description: 'The order is gone (or already was)' } },
      use: [deletable],
      handler: async (ctx) => {
        const order = deletable.entity(ctx);
        if (order !== undefined) await orders.delete(order.id);
        return noContent();
      },
    }),
  ];
}
