/**
 * The typed caller after each framework's `requireCaller(...)`, in its own typing idiom: Express's
 * `Locals` generic (`res.locals.principal`), Fastify's request decoration, Koa's state generic
 * (`ctx.state.principal`, inferred by `@koa/router`), Hono's variables (`c.get('principal')`).
 */
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { describe, expectTypeOf, it } from 'vitest';
import { requireCaller as expressCaller } from '../../src/adapters/express/index.js';
import { requireCaller as fastifyCaller } from '../../src/adapters/fastify/index.js';
import { requireCaller as honoCaller } from '../../src/adapters/hono/index.js';
import { requireCaller as koaCaller } from '../../src/adapters/koa/index.js';
import type { Principal } from '../../src/http/types.js';

describe('a typed caller after requireCaller()', () => {
  it('Express: res.locals.principal is a Principal, and the route keeps its typed parameters', () => {
    const app = express();
    app.get('/orders/:id', expressCaller(), express.json(), (req, res) => {
      expectTypeOf(res.locals.principal).toEqualTypeOf<Principal>();
      expectTypeOf(res.locals.principal.sub).toEqualTypeOf<string>();
      expectTypeOf(req.params).toEqualTypeOf<{ id: string }>();
      res.end();
    });
  });

  it('Fastify: request.principal (the decoration, typed on FastifyRequest) after the preHandler', () => {
    const app = Fastify();
    app.post<{ Params: { id: string } }>('/orders/:id', { preHandler: fastifyCaller() }, (request) => {
      expectTypeOf(request.principal).toEqualTypeOf<Principal>();
      expectTypeOf(request.params.id).toEqualTypeOf<string>();
      return null;
    });
  });

  it('Koa: ctx.state.principal is a Principal; without the guard a typed state has none', () => {
    const router = new Router();
    router.post('/orders/:id', koaCaller(), (ctx) => {
      expectTypeOf(ctx.state.principal).toEqualTypeOf<Principal>();
      expectTypeOf(ctx.params.id).toEqualTypeOf<string | undefined>();
    });
    const typed = new Router<{ readonly requestStart?: number }>();
    typed.post('/orders', koaCaller(), (ctx) => {
      expectTypeOf(ctx.state.principal).toEqualTypeOf<Principal>();
    });
    typed.post('/orders', (ctx) => {
      // @ts-expect-error: no requireCaller() before this handler
      ctx.state.principal;
    });
  });

  it('Hono: c.get("principal") is a Principal; without the guard it does not compile', () => {
    const app = new Hono();
    app.post('/orders/:id', honoCaller(), (c) => {
      expectTypeOf(c.get('principal')).toEqualTypeOf<Principal>();
      expectTypeOf(c.req.param('id')).toEqualTypeOf<string>();
      return c.body(null, 204);
    });
    app.post('/orders', (c) => {
      // @ts-expect-error: no requireCaller() before this handler
      c.get('principal');
      return c.body(null, 204);
    });
  });
});
