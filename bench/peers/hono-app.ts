/**
 * The Hono peer's app, the same on every runtime: Hono's secure-headers, etag and jwt middleware and
 * hono-rate-limiter keyed on the client's address, which each runtime reads its own way
 * (`clientAddress`: `@hono/node-server/conninfo` on Node, `hono/bun` and `hono/deno` elsewhere).
 */
import { type Context, Hono } from 'hono';
import { etag } from 'hono/etag';
import { jwt } from 'hono/jwt';
import { secureHeaders } from 'hono/secure-headers';
import { rateLimiter } from 'hono-rate-limiter';
import {
  AUTH_SECRET,
  BOOKS_UPDATED,
  bookDocument,
  booksDocument,
  createOrder,
  errorDocument,
  idempotent,
  MEDIA_TYPE,
  orderDocument,
  ownOrder,
  RATE_LIMIT,
} from './catalogue.js';

export function honoPeer(clientAddress: (c: Context) => string | undefined): Hono {
  const app = new Hono();
  app.use(secureHeaders());
  app.use(
    rateLimiter({
      windowMs: RATE_LIMIT.windowMs,
      limit: RATE_LIMIT.max,
      standardHeaders: 'draft-7',
      keyGenerator: (c) => clientAddress(c) ?? '',
    }),
  );
  app.use(etag());
  const authenticated = jwt({ secret: AUTH_SECRET, alg: 'HS256' });

  const send = (c: Context, status: number, body: unknown, headers: Record<string, string>) =>
    c.body(JSON.stringify(body), status as 200, { 'content-type': MEDIA_TYPE, ...headers });
  const publicHeaders = {
    'cache-control': 'public, max-age=60',
    'last-modified': BOOKS_UPDATED.toUTCString(),
    vary: 'Accept',
  };
  const privateHeaders = { 'cache-control': 'private, no-cache', vary: 'Accept, Authorization' };
  const subject = (c: Context) => (c.get('jwtPayload') as { sub: string }).sub;
  const notFound = (c: Context, what: string) => send(c, 404, errorDocument(404, `No such ${what}.`), {});

  app.get('/books', (c) =>
    send(c, 200, booksDocument(c.req.query('author'), c.req.path + new URL(c.req.url).search), publicHeaders),
  );
  app.get('/books/:id', (c) => {
    const document = bookDocument(c.req.param('id'));
    return document === undefined ? notFound(c, 'book') : send(c, 200, document, publicHeaders);
  });
  app.post('/orders', authenticated, async (c) => {
    let body: unknown;
    try {
      body = c.req.header('content-type') === MEDIA_TYPE ? await c.req.json() : undefined;
    } catch {
      body = undefined;
    }
    const answer = idempotent(c.req.header('idempotency-key'), subject(c), body, () =>
      createOrder(subject(c), body),
    );
    return send(c, answer.status, answer.body, {
      'cache-control': 'no-store',
      ...(answer.location === undefined ? {} : { location: answer.location }),
    });
  });
  app.get('/orders/:id', authenticated, (c) => {
    const order = ownOrder(c.req.param('id'), subject(c));
    return order === undefined ? notFound(c, 'order') : send(c, 200, orderDocument(order), privateHeaders);
  });
  app.get('/users/:id/orders/:orderId', authenticated, (c) => {
    const id = c.req.param('id');
    const order = subject(c) === id ? ownOrder(c.req.param('orderId'), id) : undefined;
    return order === undefined
      ? notFound(c, 'order')
      : send(c, 200, orderDocument(order, `/users/${id}/orders/${order.id}`), privateHeaders);
  });
  return app;
}
