/**
 * The benchmarked requests (issue 17): public reads, a conditional read answered 304, and the
 * authenticated writes and reads, the same on every server.
 */
import { randomUUID } from 'node:crypto';
import { signHs256Token } from '../src/auth/verifier.js';

/** What a case needs from the server it runs against, read once before the load. */
export interface Fixture {
  /** A bearer token for user `1`, valid for the whole run. */
  readonly token: string;
  /**
   * Bearer tokens of {@link WRITERS} distinct users (`1`..`WRITERS`), valid for the whole run: the
   * write cases take them in turn, so that no one user's idempotency quota (1,000 keys) decides
   * the answers of a long run.
   */
  readonly writers: readonly string[];
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
  /** Each request as the next of the {@link Fixture.writers} instead of user `1`. */
  readonly rotatesWriters?: boolean;
}

/**
 * How many users the write cases spread over. At most the app's memo of verified tokens (1,000,
 * docs/auth.md), so every token is remembered after the warm-up, as user 1's is on the reads;
 * 500 users give the idempotent case 500,000 keys before any user's quota of 1,000 is reached.
 */
export const WRITERS = 500;

/** The subject of the writers' tokens: users `1`..`WRITERS`. */
export const writerSubjects = () => Array.from({ length: WRITERS }, (_, i) => String(i + 1));

/** The secret every benchmarked server verifies tokens with. */
export const SECRET = 'bench-secret-bench-secret-bench-secret!';

/**
 * The settings every benchmarked server runs with: the rate limiter on but never refusing, and the
 * idempotency stores (the app's and the peers' maps) sized for 500,000 keyed requests, as many as
 * the writers' quotas allow, so that a long run is never answered `503 idempotency-store-full`.
 */
export const SERVER_ENV = {
  AUTH_SECRET: SECRET,
  RATE_LIMIT_MAX: '1000000000',
  IDEMPOTENCY_MAX_ENTRIES: String(WRITERS * 1_000),
  IDEMPOTENCY_MAX_BYTES: String(1024 ** 3),
} as const;

/** User 1's token and the writers' tokens, valid for a day. */
export async function signTokens(): Promise<{ token: string; writers: string[] }> {
  const sign = (sub: string) =>
    signHs256Token(SECRET, { sub, scope: 'orders:read orders:write', expiresInSeconds: 86_400 });
  return { token: await sign('1'), writers: await Promise.all(writerSubjects().map(sign)) };
}

/**
 * The headers of one request of a case, as the load generator's first one is (the first writer's
 * token), with a fresh `Idempotency-Key` where the case asks for one: for a single request outside
 * the load (the floors' captured answers).
 */
export function oneRequestHeaders(c: Case, f: Fixture): Record<string, string> {
  const headers = { ...c.headers(f) };
  if (c.rotatesWriters) headers.authorization = `Bearer ${f.writers[0]}`;
  if (c.freshIdempotencyKey) headers['idempotency-key'] = randomUUID();
  return headers;
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
    rotatesWriters: true,
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
    rotatesWriters: true,
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
