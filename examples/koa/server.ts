/** The bookshop in Koa 3 with @koa/router, with the primitives as middleware in the onion. */
import Router from '@koa/router';
import Koa from 'koa';
import { conventions, conventionsNotFound, requireCaller } from 'rest-conventions/adapters/koa';
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

export function koaShop(config: Config): Koa {
  const orders = new Orders();
  const primitives = shopPrimitives(config);
  const description = Buffer.from(shopDocument(primitives));
  const router = new Router();
  const send = (ctx: Koa.Context, document: unknown) => {
    ctx.type = JSON_API;
    ctx.body = Buffer.from(JSON.stringify(document));
  };

  router.get('/books', (ctx) => send(ctx, booksDocument()));
  router.get('/books/:id', (ctx) => send(ctx, bookDocument(ctx.params.id!)));
  // Koa has no body parser of its own: the idempotency primitive has read the body (the key is
  // required here) and hands it on as `ctx.request.body`, as @koa/bodyparser would.
  router.post('/orders', requireCaller(), (ctx) => {
    const { location, document } = orders.create(
      ctx.state.principal.sub,
      (ctx.request as { body?: unknown }).body,
    );
    ctx.status = 201;
    ctx.set('location', location);
    send(ctx, document);
  });
  router.get('/orders/:id', requireCaller(), (ctx) =>
    send(ctx, orders.read(ctx.state.principal.sub, ctx.params.id!)),
  );
  router.get('/openapi.json', (ctx) => {
    ctx.type = OPENAPI_TYPE;
    ctx.body = description;
  });

  const app = new Koa();
  app.use(conventions({ use: primitives }));
  app.use(router.routes());
  app.use(conventionsNotFound({ routers: [router] }));
  return app;
}
