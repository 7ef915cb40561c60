import {
  conditional,
  digestEtag,
  PRIVATE_REVALIDATED,
  type Validators,
  versionEtag,
} from 'rest-conventions/caching';
import {
  type Context,
  created,
  defineRoute,
  json,
  linkTo,
  noContent,
  type ResourceSchema,
  targetUrl,
} from 'rest-conventions/core';
import { dataDocument, defineResourceType, toOne } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { type IdempotencyOptions, idempotency } from 'rest-conventions/idempotency';
import { ownedResource } from 'rest-conventions/ownership';
import {
  bodyPointer,
  integer,
  nullable,
  oneOf,
  positiveInteger,
  strictObject,
} from 'rest-conventions/validation';
import type { Book, BookStore } from '../books/book-store.js';
import { bookSchema } from '../books/books-routes.js';
import { compareAndSet } from '../concurrency/compare-and-set.js';
import { orderId, paymentId } from '../ids.js';
import { BOOK, ORDER, ORDER_PAYMENT, ORDER_PAYMENTS, ORDERS } from '../route-targets.js';
import { includedBooks, includedMember, ORDER_INCLUDES, type OrderIncludes } from './order-includes.js';
import type { Order, OrderStore, Payment } from './order-store.js';

/** How an order is shown to its owner. */
export const orderResource = defineResourceType<Order, 'bookId' | 'quantity'>({
  type: 'orders',
  id: (order) => order.id,
  attributes: ['bookId', 'quantity'],
  links: (order) => ({ self: targetUrl(ORDER, { id: order.id }) }),
  relationships: (order) => ({
    book: toOne(
      { type: 'books', id: String(order.bookId) },
      { related: targetUrl(BOOK, { id: order.bookId }) },
    ),
  }),
});

/** The discount codes a payment may apply (`?discount=`); a new order's `payment` link offers the first. */
export const DISCOUNT_CODES = ['WELCOME10'] as const;

/** How a payment is shown: the discount it applied, its order as a relationship. */
const paymentResource = defineResourceType<Payment, 'discount'>({
  type: 'payments',
  id: (payment) => payment.id,
  attributes: ['discount'],
  links: (payment) => ({ self: paymentPath(payment) }),
  relationships: (payment) => ({
    order: toOne(
      { type: 'orders', id: String(payment.orderId) },
      { related: targetUrl(ORDER, { id: payment.orderId }) },
    ),
  }),
});

const paymentSchema: ResourceSchema = {
  type: 'payments',
  id: paymentId,
  attributes: strictObject({ discount: nullable(oneOf(DISCOUNT_CODES)) }),
  relationships: { order: { type: 'orders' } },
};

function paymentPath(payment: Payment): string {
  return targetUrl(ORDER_PAYMENT, { id: payment.orderId, payment_id: payment.id });
}

function paymentDocument(payment: Payment) {
  return dataDocument(paymentResource.toResource(payment), { links: { self: paymentPath(payment) } });
}

/** An order as the API description types it, with its book. */
export const orderSchema: ResourceSchema = {
  type: 'orders',
  id: orderId,
  attributes: strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) }),
  relationships: { book: { type: 'books' } },
};

/** The new version of the order (RFC 9110 section 8.8.3), for the next `If-Match`. */
const ORDER_ETAG = {
  description: 'The entity tag of the order as it now is (RFC 9110 section 8.8.3).',
};

/** The body of `POST /orders` (`bookId`, `quantity`). */
export const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });

function orderDocument(order: Order, included?: readonly Book[]) {
  return dataDocument(orderResource.toResource(order), {
    links: { self: targetUrl(ORDER, { id: order.id }) },
    ...includedMember(included),
  });
}

/**
 * An order's validators with what was included: when `include` was asked for, what the document's
 * `included` holds joins the order's version (each book's id and last change, or nothing when the
 * book is gone), so each representation has an ETag of its own (RFC 9110 section 8.8.3): the plain
 * order, the order with its book, and the order with `included: []`, and it moves when the book changes.
 */
function includedValidators(order: Order, included: readonly Book[] | undefined): Validators {
  if (included === undefined) return orderValidators(order);
  let lastModified = order.updatedAt.getTime();
  const parts: (string | number)[] = [order.version, 'included'];
  for (const book of included) {
    parts.push('book', book.id, book.updatedAt.getTime());
    lastModified = Math.max(lastModified, book.updatedAt.getTime());
  }
  return { etag: digestEtag(parts), lastModified };
}

/**
 * An order's validators, from its stored version: every change of an order bumps its version, and
 * nothing else in its representations changes, so no body is built or hashed to answer a 304.
 */
export function orderValidators(order: Order): Validators {
  return { etag: versionEtag(order.version), lastModified: order.updatedAt };
}

/** The body of `PATCH /orders/{id}`: only the quantity can change. */
export const OrderChange = strictObject({ quantity: integer({ min: 1, max: 100 }) });

export interface OrdersDeps {
  readonly orderStore: OrderStore;
  readonly bookStore: BookStore;
  /** The idempotency options every keyed route shares: the store and its call bound. */
  readonly keyedWrites: Pick<IdempotencyOptions, 'store' | 'storeTimeoutMs'>;
}

/**
 * `POST /orders`, `GET`/`PATCH`/`DELETE /orders/{id}`, `POST /orders/{id}/payments` and
 * `GET /orders/{id}/payments/{payment_id}`: authenticated, owner-only. Writes accept an
 * `Idempotency-Key`; `PATCH` requires `If-Match` (optimistic concurrency). A new order links its
 * `payment` (with the welcome discount).
 */
export function ordersRoutes(deps: OrdersDeps) {
  const { orderStore: orders, bookStore: books, keyedWrites } = deps;
  // Another user's order is indistinguishable from an absent one: always the same 404.
  const ownOrder = ownedResource({
    noun: 'order',
    // The route's `params` codec decoded the id (and refused any other, 404) before this runs. A
    // keyed PATCH loads through its claim's transaction: one connection from claim to completion.
    load: (id: number, ctx) =>
      orders.find(id, ctx).then((found) => (found.kind === 'live' ? found.order : undefined)),
    ownerOf: (order: Order) => order.ownerId,
  });
  // DELETE is idempotent: the owner's tombstone answers 204 again, anyone else's the same 404.
  type OrderOrTombstone =
    | (Order & { readonly live: true })
    | { readonly id: number; readonly ownerId: string; readonly live: false };
  const ownOrderOrTombstone = ownedResource({
    noun: 'order',
    load: async (id: number, ctx): Promise<OrderOrTombstone | undefined> => {
      const found = await orders.find(id, ctx);
      if (found.kind === 'live') return { ...found.order, live: true };
      if (found.kind === 'deleted') return { id, ownerId: found.ownerId, live: false };
      return undefined;
    },
    ownerOf: (order) => order.ownerId,
  });
  // The caller's own order is loaded first, so no precondition (304, 412, 428) ever answers about
  // someone else's order: they get the same 404 as for one that does not exist.
  const validators = (_ctx: Context, order: Order) => orderValidators(order);
  // With `include=book` the book is loaded with the order: one ETag for what the answer holds. Books
  // are public, so an included one is never something the caller may not see.
  const readable = conditional({
    load: async (ctx: Context<{ readonly id: number }, { readonly include?: OrderIncludes }>) => {
      const order = await ownOrder.load(ctx);
      return { order, included: await includedBooks([order], ctx.query.include, books, ctx) };
    },
    validators: (_ctx, { order, included }) => includedValidators(order, included),
    policy: PRIVATE_REVALIDATED,
  });
  const writable = conditional({ load: ownOrder.load, validators, requireIfMatch: true });
  // DELETE: the caller's order, live or already deleted (a repeated DELETE is 204 again). An
  // If-Match is honoured (412 when stale, or when the order is gone); without one the delete is
  // unconditional: it overwrites nobody's change.
  const deletable = conditional({
    load: ownOrderOrTombstone.load,
    validators: (_ctx: Context, order: OrderOrTombstone) =>
      order.live ? { etag: versionEtag(order.version), lastModified: order.updatedAt } : undefined,
  });
  return [
    defineRoute({
      ...ORDERS,
      auth: 'principal',
      summary: 'Order a book',
      body: { codec: OrderInput, type: 'orders', example: { bookId: 1, quantity: 2 } },
      responses: {
        201: {
          description: 'The order created',
          body: { resource: orderSchema },
          headers: {
            Location: { description: 'The new order', required: true },
            ETag: ORDER_ETAG,
          },
          links: {
            payment: linkTo(ORDER_PAYMENTS, {
              params: { id: 'data.id' },
              query: { discount: { value: DISCOUNT_CODES[0] } },
              description: 'Pay for the order, with the welcome discount',
            }),
          },
        },
      },
      use: [idempotency(keyedWrites)],
      handler: async (ctx) => {
        const input = ctx.body;
        // The book is read through the write's transaction when there is one: one connection per request.
        if ((await books.get(input.bookId, ctx)) === undefined) {
          throw new ApiError(400, {
            code: 'unknown-book',
            detail: `No book with id ${input.bookId}.`,
            source: { pointer: bodyPointer(ctx, 'bookId') },
          });
        }
        const order = await orders.create({ ownerId: ctx.var.principal.sub, ...input }, ctx);
        return created(targetUrl(ORDER, { id: order.id }), orderDocument(order), {
          etag: versionEtag(order.version),
        });
      },
    }),
    defineRoute({
      ...ORDER,
      params: { id: orderId },
      query: { include: ORDER_INCLUDES },
      auth: 'principal',
      summary: 'Get an order',
      responses: {
        200: {
          description: "One of the caller's orders; with `include=book`, its book in `included`",
          body: { resource: orderSchema, included: [bookSchema] },
        },
      },
      use: [readable],
      handler: (ctx) => {
        const { order, included } = ctx.var.entity;
        return json(200, orderDocument(order, included));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: ORDER.path,
      params: { id: orderId },
      auth: 'principal',
      summary: 'Change the quantity of an order',
      body: { codec: OrderChange, type: 'orders', example: { quantity: 3 } },
      responses: {
        200: {
          description: 'The order changed',
          body: { resource: orderSchema },
          headers: { ETag: ORDER_ETAG },
        },
      },
      use: [idempotency(keyedWrites), writable],
      handler: (ctx) => {
        const checked = ctx.var.entity;
        const { quantity } = ctx.body;
        return compareAndSet(
          ctx,
          checked,
          (version, request) => orders.updateQuantity(checked.id, version, quantity, request),
          orderDocument,
        );
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: ORDER.path,
      params: { id: orderId },
      auth: 'principal',
      summary: 'Cancel an order',
      responses: { 204: { description: 'The order is gone (or already was)' } },
      use: [deletable],
      handler: async (ctx) => {
        const order = ctx.var.entity;
        if (order.live) await orders.delete(order.id);
        return noContent();
      },
    }),
    defineRoute({
      ...ORDER_PAYMENTS,
      params: { id: orderId },
      query: { discount: oneOf(DISCOUNT_CODES) },
      auth: 'principal',
      summary: 'Pay for an order',
      description: 'Owned like the order: anyone else gets the same 404. `discount` applies a discount code.',
      responses: {
        201: {
          description: 'The payment recorded',
          body: { resource: paymentSchema },
          headers: { Location: { description: 'The new payment', required: true } },
        },
      },
      use: [idempotency(keyedWrites), ownOrder],
      handler: async (ctx) => {
        const payment = await orders.addPayment(ctx.var.order.id, ctx.query.discount ?? null, ctx);
        return created(paymentPath(payment), paymentDocument(payment));
      },
    }),
    defineRoute({
      ...ORDER_PAYMENT,
      params: { id: orderId, payment_id: paymentId },
      auth: 'principal',
      summary: 'Get a payment of an order',
      responses: {
        200: { description: "A payment of one of the caller's orders", body: { resource: paymentSchema } },
      },
      use: [ownOrder],
      handler: async (ctx) => {
        const payment = await orders.findPayment(ctx.var.order.id, ctx.params.payment_id, ctx);
        if (payment === undefined)
          throw new ApiError(404, {
            detail: `Order ${ctx.var.order.id} has no payment ${ctx.params.payment_id}.`,
          });
        return json(200, paymentDocument(payment));
      },
    }),
  ];
}
