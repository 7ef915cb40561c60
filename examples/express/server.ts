/** The bookshop in Express 5: its router, handlers and JSON parser, with the primitives as middleware. */
import express, { type Response } from 'express';
import createError from 'http-errors';
import { conventions, conventionsContext, conventionsErrors } from 'rest-conventions/express';
import { bookDocument, booksDocument, JSON_API, Orders, shopPrimitives } from '../bookshop/shop.js';
import type { Config } from '../reference-app/config.js';

const send = (res: Response, document: unknown) =>
  res.type(JSON_API).send(Buffer.from(JSON.stringify(document)));

export function expressShop(config: Config): express.Express {
  const orders = new Orders();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // the conditional primitive tags responses
  app.use(conventions({ use: shopPrimitives(config) }));
  app.use(express.json({ type: ['application/json', JSON_API] }));

  app.get('/books', (_req, res) => send(res, booksDocument()));
  app.get('/books/:id', (req, res) => send(res, bookDocument(req.params.id)));
  app.post('/orders', (req, res) => {
    const { location, document } = orders.create(conventionsContext(req)?.principal?.sub, req.body);
    send(res.status(201).location(location), document);
  });
  app.get('/orders/:id', (req, res) => {
    send(res, orders.read(conventionsContext(req)?.principal?.sub, req.params.id));
  });
  app.use((_req, _res, next) => next(createError(404, 'No resource exists at this path.')));
  app.use(conventionsErrors());
  return app;
}
