/** The bookshop in Fastify 5: its routes, handlers and JSON parser, with the primitives as a plugin. */
import Fastify, { type FastifyInstance } from 'fastify';
import {
  conventions,
  conventionsFrameworkErrors,
  conventionsNotFound,
  requireCaller,
} from 'rest-conventions/adapters/fastify';
import {
  bookDocument,
  booksDocument,
  JSON_API,
  OPENAPI_TYPE,
  Orders,
  shopDocument,
  shopPrimitives,
} from '../bookshop/shop.js';
import type { Config } from '../reference-app/config.js';

export async function fastifyShop(config: Config): Promise<FastifyInstance> {
  const orders = new Orders();
  const primitives = { use: shopPrimitives(config) };
  // Requests Fastify refuses before its hooks (a bad URL, a path parameter over maxParamLength) go
  // through the same primitives.
  const app = Fastify({ frameworkErrors: conventionsFrameworkErrors(primitives) });
  app.addContentTypeParser(JSON_API, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'ignore'));
  await app.register(conventions(primitives));

  app.get('/books', (_request, reply) =>
    reply.type(JSON_API).send(Buffer.from(JSON.stringify(booksDocument()))),
  );
  app.get<{ Params: { id: string } }>('/books/:id', (request, reply) =>
    reply.type(JSON_API).send(Buffer.from(JSON.stringify(bookDocument(request.params.id)))),
  );
  app.post('/orders', { preHandler: requireCaller() }, (request, reply) => {
    const { location, document } = orders.create(request.principal.sub, request.body);
    return reply
      .code(201)
      .header('location', location)
      .type(JSON_API)
      .send(Buffer.from(JSON.stringify(document)));
  });
  app.get<{ Params: { id: string } }>('/orders/:id', { preHandler: requireCaller() }, (request, reply) =>
    reply
      .type(JSON_API)
      .send(Buffer.from(JSON.stringify(orders.read(request.principal.sub, request.params.id)))),
  );
  const description = Buffer.from(shopDocument(primitives.use));
  app.get('/openapi.json', (_request, reply) => reply.type(OPENAPI_TYPE).send(description));
  app.setNotFoundHandler(conventionsNotFound());
  return app;
}
