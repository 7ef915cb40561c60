/** The peer on Express 5 with helmet, express-rate-limit, express-jwt and Express's own ETag. */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { expressjwt, type Request as JwtRequest } from 'express-jwt';
import { rateLimit } from 'express-rate-limit';
import helmet from 'helmet';
import {
  AUTH_SECRET,
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
  RATE_LIMIT,
} from './catalogue.js';
import { expressIdempotency } from './express-idempotency.js';

/** `PEER_IDEMPOTENCY=library`: keyed writes through `express-idempotency` instead of `idempotent`. */
const library = process.env.PEER_IDEMPOTENCY === 'library' ? await expressIdempotency() : undefined;

const app = express();
app.use(helmet());
app.use(
  rateLimit({
    windowMs: RATE_LIMIT.windowMs,
    limit: RATE_LIMIT.max,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
  }),
);
const authenticated = expressjwt({ secret: AUTH_SECRET, algorithms: ['HS256'] });
const body = express.json({ type: MEDIA_TYPE });

const publicHeaders = {
  'cache-control': 'public, max-age=60',
  'last-modified': BOOKS_UPDATED.toUTCString(),
  vary: 'Accept',
};
const privateHeaders = { 'cache-control': 'private, no-cache', vary: 'Accept, Authorization' };
const subject = (req: Request) => (req as JwtRequest).auth?.sub ?? '';
// res.send computes Express's ETag and answers 304 to a matching If-None-Match.
const send = (res: Response, status: number, document: unknown, headers: Record<string, string>) =>
  res.status(status).set(headers).type(MEDIA_TYPE).send(JSON.stringify(document));

app.get('/books', (req, res) => {
  const author = typeof req.query.author === 'string' ? req.query.author : undefined;
  send(res, 200, booksDocument(author, req.originalUrl), publicHeaders);
});
app.get('/books/:id', (req, res) => {
  const document = bookDocument(req.params.id);
  if (document === undefined) send(res, 404, errorDocument(404, 'No such book.'), {});
  else send(res, 200, document, publicHeaders);
});
const keyed: RequestHandler[] = library === undefined ? [] : [library.middleware];
app.post('/orders', authenticated, body, ...keyed, (req, res) => {
  if (library?.isHit(req)) return;
  const key = req.get('idempotency-key');
  const create = () => createOrder(subject(req), req.body);
  const answer = library === undefined ? idempotent(key, subject(req), req.body, create) : create();
  send(res, answer.status, answer.body, {
    'cache-control': 'no-store',
    ...(answer.location === undefined ? {} : { location: answer.location }),
  });
});
app.get('/orders/:id', authenticated, (req, res) => {
  const order = ownOrder(req.params.id as string, subject(req));
  if (order === undefined) send(res, 404, errorDocument(404, 'No such order.'), {});
  else send(res, 200, orderDocument(order), privateHeaders);
});
app.get('/users/:id/orders/:orderId', authenticated, (req, res) => {
  const { id, orderId } = req.params as { id: string; orderId: string };
  const order = subject(req) === id ? ownOrder(orderId, id) : undefined;
  if (order === undefined) send(res, 404, errorDocument(404, 'No such order.'), {});
  else send(res, 200, orderDocument(order, `/users/${id}/orders/${order.id}`), privateHeaders);
});
app.use((error: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
  const status = error.status === 401 ? 401 : error.status === 400 ? 400 : 500;
  send(res, status, errorDocument(status, status === 500 ? 'Internal error.' : 'Bad request.'), {});
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  listening(typeof address === 'object' && address !== null ? address.port : 0);
});
