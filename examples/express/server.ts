/** The bookshop in Express 5: its router, handlers and JSON parser, with the primitives as middleware. */
import express, { type Response } from 'express';
import {
  conventions,
  conventionsErrors,
  conventionsNotFound,
  requireCaller,
} from 'rest-conventions/adapters/express';
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

const send = (res: Response, document: unknown) =>
  res.type(JSON_API).send(Buffer.from(JSON.stringify(document)));

export function expressShop(config: Config): express.Express {
  const orders = new Orders();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // the conditional primitive tags responses
  const primitives = shopPrimitives(config);
  const description = shopDocument(primitives);
  app.use(conventions({ use: primitives }));
  app.use(express.json({ type: ['application/json', JSON_API] }));

  app.get('/books', (_req, res) => send(res, booksDocument()));
  app.get('/books/:id', (req, res) => send(res, bookDocument(req.params.id)));
  app.post('/orders', requireCaller(), (req, res) => {
    const { location, document } = orders.create(res.locals.principal.sub, req.body);
    send(res.status(201).location(location), document);
  });
  app.get('/orders/:id', requireCaller(), (req, res) => {
    send(res, orders.read(res.locals.principal.sub, req.params.id));
  });
  app.get('/openapi.json', (_req, res) => res.type(OPENAPI_TYPE).send(Buffer.from(description)));
  app.use(conventionsNotFound());
  app.use(conventionsErrors());
  return app;
}
