/**
 * What the four framework examples share: the data and the primitives. Each example
 * (`examples/express`, `fastify`, `koa`, `hono`) writes its routes, handlers and body parsing the
 * framework's own way and adds these primitives as that framework's middleware.
 */
import { ApiError, type Middleware } from 'rest-conventions';
import { authenticate, hs256Verifier, requireAuth } from 'rest-conventions/auth';
import { cacheControlDefault, conditional } from 'rest-conventions/caching';
import { cors } from 'rest-conventions/cors';
import { dataDocument, resourceObject } from 'rest-conventions/envelope';
import { idempotency, memoryIdempotencyStore } from 'rest-conventions/idempotency';
import { contractsOf, type DescribedRoute, openApiDocument } from 'rest-conventions/openapi';
import { memoryRateLimitStore, rateLimit } from 'rest-conventions/ratelimit';
import { securityHeaders } from 'rest-conventions/security';
import { integer, positiveInteger, strictObject, toFieldErrors } from 'rest-conventions/validation';
import type { Config } from '../reference-app/config.js';

export const JSON_API = 'application/vnd.api+json';

const BOOKS = [
  { id: '1', title: 'A Wizard of Earthsea', author: 'Ursula K. Le Guin' },
  { id: '2', title: 'Kindred', author: 'Octavia E. Butler' },
  { id: '3', title: 'Invisible Cities', author: 'Italo Calvino' },
] as const;

const bookResource = (book: (typeof BOOKS)[number]) =>
  resourceObject(
    'books',
    book.id,
    { title: book.title, author: book.author },
    { links: { self: `/books/${book.id}` } },
  );

/** `GET /books`: the whole catalogue. */
export function booksDocument() {
  return dataDocument(BOOKS.map(bookResource), { links: { self: '/books' } });
}

/** `GET /books/{id}`: one book, or a 404 error. */
export function bookDocument(id: string) {
  const book = BOOKS.find((b) => b.id === id);
  if (book === undefined) throw new ApiError(404, { detail: `No book has the id ${id}.` });
  return dataDocument(bookResource(book), { links: { self: `/books/${book.id}` } });
}

interface Order {
  readonly id: string;
  readonly ownerId: string;
  readonly bookId: number;
  readonly quantity: number;
}

const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });

const orderDocument = (order: Order) =>
  dataDocument(
    resourceObject(
      'orders',
      order.id,
      { bookId: order.bookId, quantity: order.quantity },
      { links: { self: `/orders/${order.id}` } },
    ),
    { links: { self: `/orders/${order.id}` } },
  );

/** The orders of one server: created by `POST /orders`, read back by their owner only. */
export class Orders {
  private readonly orders = new Map<string, Order>();

  /**
   * Validates the parsed body (bare attributes) and creates the order: its location and document. The
   * owner is the caller each example's `requireCaller()` hands its handler.
   */
  create(ownerId: string, body: unknown): { location: string; document: unknown } {
    const decoded = OrderInput.decode(body);
    if (decoded._tag === 'Left') throw new ApiError(400, { errors: toFieldErrors(decoded.left, '') });
    if (!BOOKS.some((b) => Number(b.id) === decoded.right.bookId)) {
      throw new ApiError(422, {
        detail: `No book has the id ${decoded.right.bookId}.`,
        source: { pointer: '/bookId' },
      });
    }
    const order: Order = { id: String(this.orders.size + 1), ownerId, ...decoded.right };
    this.orders.set(order.id, order);
    return { location: `/orders/${order.id}`, document: orderDocument(order) };
  }

  /** The order's document for its owner; 404 for anyone else (its existence is not disclosed). */
  read(ownerId: string, id: string): unknown {
    const order = this.orders.get(id);
    if (order === undefined || order.ownerId !== ownerId)
      throw new ApiError(404, { detail: `No order ${id}.` });
    return orderDocument(order);
  }
}

/**
 * Every write of the shop needs a caller, and is refused before the idempotency key is looked at: an
 * anonymous `POST /orders` is 401 with `WWW-Authenticate`, whether or not it sent a key.
 */
const callerBeforeKey = (): Middleware => {
  const callerRequired = requireAuth();
  return (ctx, next) => (ctx.request.method === 'POST' ? callerRequired(ctx, next) : next());
};

/**
 * The primitives every example runs, outermost first: security headers, CORS for the origins in
 * `CORS_ORIGINS` (none by default), `Cache-Control: no-store`
 * where nothing else says, the caller from a bearer JWT, rate limiting (by user, else by address),
 * conditional GET (ETag over the framework's own bytes, 304), the caller of a write before its key,
 * and idempotent writes (`Idempotency-Key` required; the framework's own response replayed).
 */
export function shopPrimitives(config: Config): Middleware[] {
  return [
    securityHeaders(),
    cors({ origins: config.corsOrigins }),
    cacheControlDefault(),
    authenticate({ verifier: hs256Verifier({ secret: config.authSecret }) }),
    rateLimit({
      policies: [
        { name: 'default', quota: config.rateLimit.max, windowSeconds: config.rateLimit.windowSeconds },
      ],
      store: memoryRateLimitStore(),
    }),
    conditional({ policy: { scope: 'public', maxAge: 60 } }),
    callerBeforeKey(),
    idempotency({ store: memoryIdempotencyStore(), required: true }),
  ];
}

/** The operations each example serves, described with the library's codecs for `openApiDocument`. */
const SHOP_ROUTES: readonly DescribedRoute[] = [
  {
    method: 'GET',
    pattern: '/books',
    responses: { 200: { description: 'The catalogue', body: 'collection' } },
  },
  {
    method: 'GET',
    pattern: '/books/{id}',
    responses: { 200: { description: 'One book', body: 'resource' } },
  },
  {
    method: 'POST',
    pattern: '/orders',
    auth: 'principal',
    body: { codec: OrderInput, type: 'orders' },
    responses: {
      201: {
        description: 'The order',
        body: 'resource',
        headers: { location: { description: 'The new order' } },
      },
      422: { description: 'No book has the id given' },
    },
  },
  {
    method: 'GET',
    pattern: '/orders/{id}',
    auth: 'principal',
    responses: { 200: { description: "One of the caller's orders", body: 'resource' } },
  },
];

/**
 * `GET /openapi.json` of an example: the OpenAPI 3.1 document of its own four operations, with the
 * contracts of its primitives (`docs/openapi.md`), as `application/vnd.oai.openapi+json` text.
 */
export function shopDocument(primitives: readonly Middleware[]): string {
  return JSON.stringify(
    openApiDocument(SHOP_ROUTES, {
      title: 'Bookshop example',
      version: '1.0.0',
      contracts: contractsOf(primitives),
    }),
  );
}

export const OPENAPI_TYPE = 'application/vnd.oai.openapi+json';
