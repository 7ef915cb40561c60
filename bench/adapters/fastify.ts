/**
 * `fastify+rc`: the Fastify 5 peer's routes and documents with `rest-conventions/adapters/fastify` doing the
 * security headers, JWTs, rate limit and ETags instead of @fastify/helmet, @fastify/jwt,
 * @fastify/rate-limit and @fastify/etag (docs/benchmarks.md, "Adapter overhead").
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { conventions, conventionsContext } from 'rest-conventions/adapters/fastify';
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

const app = Fastify({ logger: false });
app.addContentTypeParser(MEDIA_TYPE, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
await app.register(conventions({ use: primitives() }));

const publicHeaders = { 'cache-control': 'public, max-age=60', 'last-modified': BOOKS_UPDATED.toUTCString() };
const privateHeaders = { 'cache-control': 'private, no-cache' };
const send = (reply: FastifyReply, status: number, document: unknown, headers: Record<string, string> = {}) =>
  reply
    .code(status)
    .headers(headers)
    .type(MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify(document)));
const unauthorized = (reply: FastifyReply) =>
  send(reply.header('www-authenticate', 'Bearer'), 401, errorDocument(401, 'A bearer token is required.'));
const subject = (request: FastifyRequest) => conventionsContext(request)?.var.principal?.sub;

app.get<{ Querystring: { author?: string } }>('/books', (request, reply) =>
  send(reply, 200, booksDocument(request.query.author, request.url), publicHeaders),
);
app.get<{ Params: { id: string } }>('/books/:id', (request, reply) => {
  const document = bookDocument(request.params.id);
  if (document === undefined) return send(reply, 404, errorDocument(404, 'No such book.'));
  return send(reply, 200, document, publicHeaders);
});
app.post<{ Headers: { 'idempotency-key'?: string } }>('/orders', (request, reply) => {
  const sub = subject(request);
  if (sub === undefined) return unauthorized(reply);
  const answer = idempotent(request.headers['idempotency-key'], sub, request.body, () =>
    createOrder(sub, request.body),
  );
  return send(reply, answer.status, answer.body, {
    'cache-control': 'no-store',
    ...(answer.location === undefined ? {} : { location: answer.location }),
  });
});
app.get<{ Params: { id: string } }>('/orders/:id', (request, reply) => {
  const sub = subject(request);
  if (sub === undefined) return unauthorized(reply);
  const order = ownOrder(request.params.id, sub);
  if (order === undefined) return send(reply, 404, errorDocument(404, 'No such order.'));
  return send(reply, 200, orderDocument(order), privateHeaders);
});
app.get<{ Params: { id: string; orderId: string } }>('/users/:id/orders/:orderId', (request, reply) => {
  const sub = subject(request);
  if (sub === undefined) return unauthorized(reply);
  const { id, orderId } = request.params;
  const order = sub === id ? ownOrder(orderId, id) : undefined;
  if (order === undefined) return send(reply, 404, errorDocument(404, 'No such order.'));
  return send(reply, 200, orderDocument(order, `/users/${id}/orders/${order.id}`), privateHeaders);
});

listening(Number(new URL(await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })).port));
