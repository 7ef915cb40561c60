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
import {
  requireCaller as expressCaller,
  conventionsContext as expressContext,
} from '../../src/adapters/express/index.js';
import {
  requireCaller as fastifyCaller,
  conventionsContext as fastifyContext,
} from '../../src/adapters/fastify/index.js';
import {
  describedRoutes,
  requireCaller as honoCaller,
  conventionsContext as honoContext,
} from '../../src/adapters/hono/index.js';
import {
  requireCaller as koaCaller,
  conventionsContext as koaContext,
} from '../../src/adapters/koa/index.js';
import { requireAuth } from '../../src/auth/middleware.js';
import { json } from '../../src/core/response.js';
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

  it('reaches what any layer added as conventionsContext(request)?.var, optional in a framework route', () => {
    express().get('/me', (req, res) => {
      expectTypeOf(expressContext(req)?.var.principal).toEqualTypeOf<Principal | undefined>();
      res.end();
    });
    Fastify().get('/me', (request) => {
      expectTypeOf(fastifyContext(request)?.var.principal).toEqualTypeOf<Principal | undefined>();
      return null;
    });
    new Router().get('/me', (ctx) => {
      expectTypeOf(koaContext(ctx)?.var.principal).toEqualTypeOf<Principal | undefined>();
    });
    new Hono().get('/me', honoCaller(), (c) => {
      expectTypeOf(honoContext(c)?.var.principal).toEqualTypeOf<Principal | undefined>();
      // Hono's own spelling of its variables reaches the caller too.
      expectTypeOf(c.var.principal).toEqualTypeOf<Principal>();
      return c.body(null, 204);
    });
  });

  it('types ctx.var in a described route as in createApp', () => {
    describedRoutes(new Hono()).route({
      method: 'GET',
      path: '/me',
      use: [requireAuth()],
      handler: (ctx) => {
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, { meta: { sub: ctx.var.principal.sub } });
      },
    });
  });
});
