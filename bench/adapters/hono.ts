/**
 * `hono+rc`: the Hono 4 peer's routes and documents with `rest-conventions/adapters/hono` doing the security
 * headers, JWTs, rate limit and ETags instead of Hono's secure-headers, jwt and etag middleware and
 * hono-rate-limiter (docs/benchmarks.md, "Adapter overhead").
 */
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { conventions, conventionsContext, conventionsErrors } from 'rest-conventions/adapters/hono';
import {
  BOOKS_UPDATED,
  bookDocument,
  booksDocument,
  createOrder,
  errorDocument,
  idempotent,
  listening,
  MEDIA_TYPE,
  orderDocument,
  ownOrder,
} from '../peers/catalogue.js';
import { primitives } from './primitives.js';

const app = new Hono();
app.use(conventions({ use: primitives() }));
app.onError(conventionsErrors());

const send = (c: Context, status: number, body: unknown, headers: Record<string, string> = {}) =>
  c.body(JSON.stringify(body), status as 200, { 'content-type': MEDIA_TYPE, ...headers });
const publicHeaders = { 'cache-control': 'public, max-age=60', 'last-modified': BOOKS_UPDATED.toUTCString() };
const privateHeaders = { 'cache-control': 'private, no-cache' };
const unauthorized = (c: Context) =>
  send(c, 401, errorDocument(401, 'A bearer token is required.'), { 'www-authenticate': 'Bearer' });
const subject = (c: Context) => conventionsContext(c)?.var.principal?.sub;

app.get('/books', (c) =>
  send(c, 200, booksDocument(c.req.query('author'), c.req.path + new URL(c.req.url).search), publicHeaders),
);
app.get('/books/:id', (c) => {
  const document = bookDocument(c.req.param('id'));
  return document === undefined
    ? send(c, 404, errorDocument(404, 'No such book.'))
    : send(c, 200, document, publicHeaders);
});
app.post('/orders', async (c) => {
  const sub = subject(c);
  if (sub === undefined) return unauthorized(c);
  let body: unknown;
  try {
    body = c.req.header('content-type') === MEDIA_TYPE ? await c.req.json() : undefined;
  } catch {
    body = undefined;
  }
  const answer = idempotent(c.req.header('idempotency-key'), sub, body, () => createOrder(sub, body));
  return send(c, answer.status, answer.body, {
    'cache-control': 'no-store',
    ...(answer.location === undefined ? {} : { location: answer.location }),
  });
});
app.get('/orders/:id', (c) => {
  const sub = subject(c);
  if (sub === undefined) return unauthorized(c);
  const order = ownOrder(c.req.param('id'), sub);
  return order === undefined
    ? send(c, 404, errorDocument(404, 'No such order.'))
    : send(c, 200, orderDocument(order), privateHeaders);
});
app.get('/users/:id/orders/:orderId', (c) => {
  const sub = subject(c);
  if (sub === undefined) return unauthorized(c);
  const id = c.req.param('id');
  const order = sub === id ? ownOrder(c.req.param('orderId'), id) : undefined;
  return order === undefined
    ? send(c, 404, errorDocument(404, 'No such order.'))
    : send(c, 200, orderDocument(order, `/users/${id}/orders/${order.id}`), privateHeaders);
});

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) =>
  listening(info.port),
);
