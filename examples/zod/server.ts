/**
 * The bookshop in Hono 4 with zod 4 end to end: every path parameter, body and resource is a zod
 * schema, declared with `describedRoutes` in Hono's own router. The handlers' input is typed from the
 * schemas, a refused input is the library's 400 (404 for a path id) with JSON pointers, and
 * `/openapi.json` describes each schema by zod's own JSON Schema, so `rest-conventions lint`, the
 * conventions kit and generated clients read it as they read an io-ts app's.
 */
import { Hono } from 'hono';
import { ApiError, created, defineRoute, json, type Middleware } from 'rest-conventions';
import {
  conventions,
  conventionsErrors,
  conventionsNotFound,
  describedRoutes,
} from 'rest-conventions/adapters/hono';
import type { ResourceSchema, RouteInfo } from 'rest-conventions/core';
import { dataDocument, resourceObject } from 'rest-conventions/envelope';
import { contractsOf, openApiDocument } from 'rest-conventions/openapi';
import { z } from 'zod';
import { OPENAPI_TYPE, shopPrimitives } from '../bookshop/shop.js';
import type { Config } from '../reference-app/config.js';

/** An id as JSON:API has it, a string of digits ("1"), decoded to a number. */
const Id = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/)
  .transform(Number);
const Book = z.strictObject({ title: z.string().min(1).max(200), author: z.string().min(1).max(200) });
const OrderInput = z.strictObject({
  bookId: z.int().min(1),
  quantity: z.int().min(1).max(100),
});

const books: ResourceSchema = { type: 'books', id: Id, attributes: Book };
const orders: ResourceSchema = { type: 'orders', id: Id, attributes: OrderInput };

const BOOKS: readonly (z.output<typeof Book> & { readonly id: number })[] = [
  { id: 1, title: 'A Wizard of Earthsea', author: 'Ursula K. Le Guin' },
  { id: 2, title: 'Kindred', author: 'Octavia E. Butler' },
  { id: 3, title: 'Invisible Cities', author: 'Italo Calvino' },
];

interface Order extends z.output<typeof OrderInput> {
  readonly id: number;
  readonly ownerId: string;
}

const bookResource = ({ id, ...attributes }: (typeof BOOKS)[number]) =>
  resourceObject('books', String(id), attributes, { links: { self: `/books/${id}` } });
const orderDocument = ({ id, bookId, quantity }: Order) =>
  dataDocument(
    resourceObject('orders', String(id), { bookId, quantity }, { links: { self: `/orders/${id}` } }),
  );

/** The shop's routes; `described` lists them for the document. */
function shopRoutes(primitives: readonly Middleware[], described: () => readonly RouteInfo[]) {
  const placed: Order[] = [];
  return [
    defineRoute({
      method: 'GET',
      path: '/books',
      responses: { 200: { description: 'The catalogue', body: { collection: books } } },
      handler: () => json(200, dataDocument(BOOKS.map(bookResource), { links: { self: '/books' } })),
    }),
    defineRoute({
      method: 'GET',
      path: '/books/{id}',
      params: { id: Id },
      responses: { 200: { description: 'One book', body: { resource: books } } },
      handler: (ctx) => {
        const book = BOOKS.find((b) => b.id === ctx.params.id);
        if (book === undefined) throw new ApiError(404, { detail: `No book has the id ${ctx.params.id}.` });
        return json(200, dataDocument(bookResource(book)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/orders',
      auth: 'principal',
      body: { codec: OrderInput, type: 'orders', example: { bookId: 1, quantity: 1 } },
      responses: {
        201: {
          description: 'The order',
          body: { resource: orders },
          headers: { location: { description: 'The new order', required: true } },
        },
        422: { description: 'No book has the id given' },
      },
      handler: (ctx) => {
        if (!BOOKS.some((b) => b.id === ctx.body.bookId))
          throw new ApiError(422, {
            detail: `No book has the id ${ctx.body.bookId}.`,
            source: { pointer: '/bookId' },
          });
        const order: Order = { id: placed.length + 1, ownerId: ctx.var.principal.sub, ...ctx.body };
        placed.push(order);
        return created(`/orders/${order.id}`, orderDocument(order));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: Id },
      auth: 'principal',
      responses: { 200: { description: "One of the caller's orders", body: { resource: orders } } },
      handler: (ctx) => {
        // Another caller's order is not disclosed: the same 404 as no order.
        const order = placed.find((o) => o.id === ctx.params.id && o.ownerId === ctx.var.principal.sub);
        if (order === undefined) throw new ApiError(404, { detail: `No order ${ctx.params.id}.` });
        return json(200, orderDocument(order));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      produces: [OPENAPI_TYPE],
      responses: {
        200: { description: 'This API described (OpenAPI 3.1)', body: z.record(z.string(), z.unknown()) },
      },
      handler: () =>
        json(
          200,
          openApiDocument(described(), {
            title: 'Bookshop with zod',
            version: '1.0.0',
            servers: [{ url: '/' }],
            license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
            contracts: contractsOf(primitives),
          }),
        ),
    }),
  ];
}

/** The zod bookshop as a Hono app, with the primitives of the other examples. */
export function zodShop(config: Config): Hono {
  const primitives = shopPrimitives(config);
  const app = new Hono();
  app.use(conventions({ use: primitives }));
  const api = describedRoutes(app);
  for (const route of shopRoutes(primitives, () => api.routes())) api.route(route);
  app.notFound(conventionsNotFound(app));
  app.onError(conventionsErrors());
  return app;
}
