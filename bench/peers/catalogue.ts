/**
 * What the three peer servers share: the reference app's 14 books (from its own store), its
 * JSON:API documents built by hand, a memory order store and the naive `Idempotency-Key` replay a
 * team would write without a library (a bounded map, no in-flight lock). Framework-free; each peer
 * wires it with its own plugins for security headers, ETags, rate limiting and JWTs.
 */
import { MemoryBookStore } from '../../examples/reference-app/books/book-store.js';

export const MEDIA_TYPE = 'application/vnd.api+json';
// The reference app's own catalogue, so that every server serves the same books.
const CATALOGUE = await new MemoryBookStore().list({});
export const BOOKS_UPDATED = CATALOGUE[0]!.updatedAt;

interface Book {
  readonly id: number;
  readonly title: string;
  readonly author: string;
}

const BOOKS: readonly Book[] = CATALOGUE.map(({ id, title, author }) => ({ id, title, author }));

const bookResource = (book: Book) => ({
  type: 'books',
  id: String(book.id),
  attributes: { title: book.title, author: book.author },
  links: { self: `/books/${book.id}` },
});

/** `GET /books?author=`: the collection document; `self` is the request target as sent. */
export function booksDocument(author: string | undefined, self: string) {
  const wanted = author?.toLowerCase();
  const books = wanted === undefined ? BOOKS : BOOKS.filter((book) => book.author.toLowerCase() === wanted);
  return { data: books.map(bookResource), links: { self } };
}

/** `GET /books/{id}`: the document, or `undefined` for an unknown id. */
export function bookDocument(rawId: string) {
  const book = /^[1-9][0-9]{0,8}$/.test(rawId) ? BOOKS[Number(rawId) - 1] : undefined;
  return book === undefined ? undefined : { data: bookResource(book), links: { self: `/books/${book.id}` } };
}

export interface Order {
  readonly id: number;
  readonly ownerId: string;
  readonly bookId: number;
  readonly quantity: number;
  readonly version: number;
}

const orders = new Map<number, Order>();
let nextOrderId = 1;

function orderResource(order: Order) {
  return {
    type: 'orders',
    id: String(order.id),
    attributes: { bookId: order.bookId, quantity: order.quantity },
    relationships: {
      book: {
        data: { type: 'books', id: String(order.bookId) },
        links: { related: `/books/${order.bookId}` },
      },
    },
    links: { self: `/orders/${order.id}` },
  };
}

export const orderDocument = (order: Order, self = `/orders/${order.id}`) => ({
  data: orderResource(order),
  links: { self },
});

/** The caller's own order, or `undefined` (someone else's looks absent). */
export function ownOrder(rawId: string, ownerId: string): Order | undefined {
  const order = /^[1-9][0-9]{0,8}$/.test(rawId) ? orders.get(Number(rawId)) : undefined;
  return order?.ownerId === ownerId ? order : undefined;
}

/** A JSON:API error document. */
export const errorDocument = (status: number, detail: string) => ({
  errors: [{ status: String(status), detail }],
});

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly location?: string;
}

/** `POST /orders`: checks the document by hand and creates the order. */
export function createOrder(ownerId: string, body: unknown): Answer {
  const data = (body as { data?: { type?: unknown; attributes?: Record<string, unknown> } } | null)?.data;
  const bookId = data?.attributes?.bookId;
  const quantity = data?.attributes?.quantity;
  if (data?.type !== 'orders' || !Number.isSafeInteger(bookId) || (bookId as number) < 1) {
    return {
      status: 400,
      body: errorDocument(400, 'An orders document with a positive integer bookId is required.'),
    };
  }
  if (!Number.isInteger(quantity) || (quantity as number) < 1 || (quantity as number) > 100) {
    return { status: 400, body: errorDocument(400, 'quantity must be an integer from 1 to 100.') };
  }
  if (BOOKS[(bookId as number) - 1] === undefined) {
    return { status: 400, body: errorDocument(400, `No book with id ${bookId}.`) };
  }
  const order: Order = {
    id: nextOrderId++,
    ownerId,
    bookId: bookId as number,
    quantity: quantity as number,
    version: 1,
  };
  orders.set(order.id, order);
  return { status: 201, body: orderDocument(order), location: `/orders/${order.id}` };
}

/**
 * Keys remembered, as many as the app's memory store holds (its `maxEntries`: 100,000 by default,
 * `IDEMPOTENCY_MAX_ENTRIES` when the bench sizes both for a run).
 */
const IDEMPOTENCY_LIMIT = Number(process.env.IDEMPOTENCY_MAX_ENTRIES ?? 100_000);
const replays = new Map<string, { readonly fingerprint: string; readonly answer: Answer }>();

/**
 * The replay a team writes by hand: the first answer under a key is stored (the oldest of
 * {@link IDEMPOTENCY_LIMIT} keys forgotten first) and replayed for the same request body; another
 * body under the same key is refused with 422.
 */
export function idempotent(
  key: string | undefined,
  ownerId: string,
  body: unknown,
  run: () => Answer,
): Answer {
  if (key === undefined) return run();
  const scoped = `${ownerId}:${key}`;
  const fingerprint = JSON.stringify(body);
  const seen = replays.get(scoped);
  if (seen !== undefined) {
    return seen.fingerprint === fingerprint
      ? seen.answer
      : { status: 422, body: errorDocument(422, 'This Idempotency-Key was used with another request.') };
  }
  const answer = run();
  if (replays.size >= IDEMPOTENCY_LIMIT) replays.delete(replays.keys().next().value as string);
  replays.set(scoped, { fingerprint, answer });
  return answer;
}

/** Every peer's rate limit: on, with a quota the load never reaches (as for the reference app). */
export const RATE_LIMIT = { max: 1_000_000_000, windowMs: 60_000 } as const;

export const AUTH_SECRET = process.env.AUTH_SECRET ?? '';
if (AUTH_SECRET.length < 32) throw new TypeError('AUTH_SECRET must be set to at least 32 bytes');

export const listening = (port: number) => process.stdout.write(`listening ${port}\n`);
