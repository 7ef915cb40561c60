/** The peer on Fastify 5 with @fastify/helmet, @fastify/etag, @fastify/rate-limit and @fastify/jwt. */
import etag from '@fastify/etag';
import helmet from '@fastify/helmet';
import jwt from '@fastify/jwt';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
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
import { useNodeIdempotency } from './node-idempotency.js';

/** `PEER_IDEMPOTENCY=library`: keyed writes through `@node-idempotency/core` instead of `idempotent`. */
const library = process.env.PEER_IDEMPOTENCY === 'library';

const app = Fastify({ logger: false });
await app.register(helmet);
await app.register(etag);
await app.register(rateLimit, { max: RATE_LIMIT.max, timeWindow: RATE_LIMIT.windowMs });
await app.register(jwt, { secret: AUTH_SECRET, verify: { algorithms: ['HS256'] } });
app.addContentTypeParser(MEDIA_TYPE, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
if (library) await useNodeIdempotency(app);

const publicHeaders = {
  'content-type': MEDIA_TYPE,
  'cache-control': 'public, max-age=60',
  'last-modified': BOOKS_UPDATED.toUTCString(),
  vary: 'Accept',
};
const privateHeaders = {
  'content-type': MEDIA_TYPE,
  'cache-control': 'private, no-cache',
  vary: 'Accept, Authorization',
};

async function authenticate(request: FastifyRequest, reply: FastifyReply) {
  try {
    await request.jwtVerify();
  } catch {
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send(errorDocument(401, 'A valid bearer token is required.'));
  }
}
const subject = (request: FastifyRequest) => (request.user as { sub: string }).sub;

app.get<{ Querystring: { author?: string } }>('/books', (request, reply) =>
  reply.headers(publicHeaders).send(booksDocument(request.query.author, request.url)),
);
app.get<{ Params: { id: string } }>('/books/:id', (request, reply) => {
  const document = bookDocument(request.params.id);
  if (document === undefined) return reply.code(404).send(errorDocument(404, 'No such book.'));
  return reply.headers(publicHeaders).send(document);
});
app.post<{ Headers: { 'idempotency-key'?: string } }>(
  '/orders',
  { onRequest: authenticate },
  (request, reply) => {
    const create = () => createOrder(subject(request), request.body);
    const key = request.headers['idempotency-key'];
    const answer = library ? create() : idempotent(key, subject(request), request.body, create);
    if (answer.location !== undefined) reply.header('location', answer.location);
    return reply
      .code(answer.status)
      .headers({ 'content-type': MEDIA_TYPE, 'cache-control': 'no-store' })
      .send(answer.body);
  },
);
app.get<{ Params: { id: string } }>('/orders/:id', { onRequest: authenticate }, (request, reply) => {
  const order = ownOrder(request.params.id, subject(request));
  if (order === undefined) return reply.code(404).send(errorDocument(404, 'No such order.'));
  return reply.headers(privateHeaders).send(orderDocument(order));
});
app.get<{ Params: { id: string; orderId: string } }>(
  '/users/:id/orders/:orderId',
  { onRequest: authenticate },
  (request, reply) => {
    const { id, orderId } = request.params;
    const order = subject(request) === id ? ownOrder(orderId, id) : undefined;
    if (order === undefined) return reply.code(404).send(errorDocument(404, 'No such order.'));
    return reply.headers(privateHeaders).send(orderDocument(order, `/users/${id}/orders/${order.id}`));
  },
);

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
listening(Number(new URL(address).port));
