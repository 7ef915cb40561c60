/** The bookshop in Hono 4: its router, handlers and `c.req.json()`, with the primitives as middleware. */
import { Hono } from 'hono';
import {
  conventions,
  conventionsErrors,
  conventionsNotFound,
  requireCaller,
} from 'rest-conventions/adapters/hono';
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

export function honoShop(config: Config): Hono {
  const orders = new Orders();
  const app = new Hono();
  const body = (document: unknown) => JSON.stringify(document);
  const headers = { 'content-type': JSON_API };

  const primitives = shopPrimitives(config);
  const description = shopDocument(primitives);
  app.use(conventions({ use: primitives }));
  app.get('/books', (c) => c.body(body(booksDocument()), 200, headers));
  app.get('/books/:id', (c) => c.body(body(bookDocument(c.req.param('id'))), 200, headers));
  app.post('/orders', requireCaller(), async (c) => {
    const { location, document } = orders.create(c.get('principal').sub, await c.req.json());
    return c.body(body(document), 201, { ...headers, location });
  });
  app.get('/orders/:id', requireCaller(), (c) =>
    c.body(body(orders.read(c.get('principal').sub, c.req.param('id'))), 200, headers),
  );
  app.get('/openapi.json', (c) => c.body(description, 200, { 'content-type': OPENAPI_TYPE }));
  app.notFound(conventionsNotFound(app));
  app.onError(conventionsErrors());
  return app;
}
