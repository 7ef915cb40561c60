/**
 * The benchmarked requests (issue 17): public reads, a conditional read answered 304, and the
 * authenticated writes and reads, the same on every server.
 */

/** What a case needs from the server it runs against, read once before the load. */
export interface Fixture {
  /** A bearer token for user `1`, valid for the whole run. */
  readonly token: string;
  /** An order of user `1`, created on that server. */
  readonly orderId: string;
  /** That server's own ETag for `/books/7`. */
  readonly bookEtag: string;
}

export interface Case {
  readonly name: string;
  /** How the case is shown in tables and the chart. */
  readonly title: string;
  readonly method: 'GET' | 'POST';
  readonly path: (f: Fixture) => string;
  readonly headers: (f: Fixture) => Record<string, string>;
  readonly body?: string;
  /** The status every answer must have; any other is counted and reported. */
  readonly status: number;
  /** A fresh `Idempotency-Key` on every request. */
  readonly freshIdempotencyKey?: boolean;
}

export const ORDER_BODY = JSON.stringify({
  data: { type: 'orders', attributes: { bookId: 7, quantity: 1 } },
});
const bearer = (f: Fixture) => ({ authorization: `Bearer ${f.token}` });
const jsonApi = { 'content-type': 'application/vnd.api+json' };

export const CASES: readonly Case[] = [
  {
    name: 'books-by-author',
    title: 'GET /books?author=',
    method: 'GET',
    path: () => '/books?author=Italo%20Calvino',
    headers: () => ({}),
    status: 200,
  },
  {
    name: 'book',
    title: 'GET /books/7',
    method: 'GET',
    path: () => '/books/7',
    headers: () => ({}),
    status: 200,
  },
  {
    name: 'book-304',
    title: 'GET /books/7 If-None-Match (304)',
    method: 'GET',
    path: () => '/books/7',
    headers: (f) => ({ 'if-none-match': f.bookEtag }),
    status: 304,
  },
  {
    name: 'order-post',
    title: 'POST /orders (bearer)',
    method: 'POST',
    path: () => '/orders',
    headers: (f) => ({ ...bearer(f), ...jsonApi }),
    body: ORDER_BODY,
    status: 201,
  },
  {
    name: 'order-post-idempotent',
    title: 'POST /orders (bearer, Idempotency-Key)',
    method: 'POST',
    path: () => '/orders',
    headers: (f) => ({ ...bearer(f), ...jsonApi }),
    body: ORDER_BODY,
    status: 201,
    freshIdempotencyKey: true,
  },
  {
    name: 'order',
    title: 'GET /orders/{id} (bearer, owner)',
    method: 'GET',
    path: (f) => `/orders/${f.orderId}`,
    headers: bearer,
    status: 200,
  },
  {
    name: 'user-order',
    title: 'GET /users/{id}/orders/{order_id}',
    method: 'GET',
    path: (f) => `/users/1/orders/${f.orderId}`,
    headers: bearer,
    status: 200,
  },
];

/** How the floors key a canned answer: method, request target, and whether it is conditional. */
export const cannedKey = (method: string, target: string, conditional: boolean) =>
  `${method} ${target}${conditional ? ' if-none-match' : ''}`;
