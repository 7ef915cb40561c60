/**
 * `express+rc`: the Express 5 peer's routes and documents with `rest-conventions/adapters/express` doing the
 * security headers, JWTs, rate limit and ETags instead of helmet, express-jwt, express-rate-limit and
 * Express's ETag (docs/benchmarks.md, "Adapter overhead").
 */
import express, { type Request, type Response } from 'express';
import { conventions, conventionsContext, conventionsErrors } from 'rest-conventions/adapters/express';
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

const app = express();
app.disable('x-powered-by');
app.set('etag', false); // the conditional primitive tags responses
app.use(conventions({ use: primitives() }));
const body = express.json({ type: MEDIA_TYPE });

const publicHeaders = { 'cache-control': 'public, max-age=60', 'last-modified': BOOKS_UPDATED.toUTCString() };
const send = (res: Response, status: number, document: unknown, headers: Record<string, string> = {}) =>
  res
    .status(status)
    .set(headers)
    .type(MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify(document)));
/** The caller's subject; answers 401 and gives `undefined` without a valid bearer token. */
function subject(req: Request, res: Response): string | undefined {
  const sub = conventionsContext(req)?.var.principal?.sub;
  if (sub === undefined)
    send(res.set('www-authenticate', 'Bearer'), 401, errorDocument(401, 'A bearer token is required.'));
  return sub;
}

app.get('/books', (req, res) => {
  const author = typeof req.query.author === 'string' ? req.query.author : undefined;
  send(res, 200, booksDocument(author, req.originalUrl), publicHeaders);
});
app.get('/books/:id', (req, res) => {
  const document = bookDocument(req.params.id);
  if (document === undefined) send(res, 404, errorDocument(404, 'No such book.'));
  else send(res, 200, document, publicHeaders);
});
app.post('/orders', body, (req, res) => {
  const sub = subject(req, res);
  if (sub === undefined) return;
  const answer = idempotent(req.get('idempotency-key'), sub, req.body, () => createOrder(sub, req.body));
  send(res, answer.status, answer.body, {
    'cache-control': 'no-store',
    ...(answer.location === undefined ? {} : { location: answer.location }),
  });
});
app.get('/orders/:id', (req, res) => {
  const sub = subject(req, res);
  if (sub === undefined) return;
  const order = ownOrder(req.params.id, sub);
  if (order === undefined) send(res, 404, errorDocument(404, 'No such order.'));
  else send(res, 200, orderDocument(order), { 'cache-control': 'private, no-cache' });
});
app.get('/users/:id/orders/:orderId', (req, res) => {
  const sub = subject(req, res);
  if (sub === undefined) return;
  const { id, orderId } = req.params;
  const order = sub === id ? ownOrder(orderId, id) : undefined;
  if (order === undefined) send(res, 404, errorDocument(404, 'No such order.'));
  else
    send(res, 200, orderDocument(order, `/users/${id}/orders/${order.id}`), {
      'cache-control': 'private, no-cache',
    });
});
app.use(conventionsErrors());

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  listening(typeof address === 'object' && address !== null ? address.port : 0);
});
