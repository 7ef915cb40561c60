/**
 * requireCaller() in each framework over a real socket: without a token the 401 `requireAuth()`
 * answers (the error document, `WWW-Authenticate`, through the primitives), with one the handler reads
 * the caller's `sub` from the framework's own place (Express `res.locals`, Fastify `request`, Koa
 * `ctx.state`, Hono `c.get`). Types: `typed-caller.test-d.ts`.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../examples/reference-app/serve.js';
import * as ex from '../../src/adapters/express/index.js';
import * as fa from '../../src/adapters/fastify/index.js';
import * as ho from '../../src/adapters/hono/index.js';
import * as ko from '../../src/adapters/koa/index.js';
import { authenticate, hs256Verifier, signHs256Token } from '../../src/auth/index.js';
import type { Middleware } from '../../src/http/types.js';
import { securityHeaders } from '../../src/security/index.js';

const SECRET = 'typed-caller test secret, thirty-two bytes or more';
const use = (): Middleware[] => [
  securityHeaders(),
  authenticate({ verifier: hs256Verifier({ secret: SECRET }) }),
];

async function expressApp(): Promise<Served> {
  const app = express();
  app.use(ex.conventions({ use: use() }));
  app.get('/me/:id', ex.requireCaller(), (req, res) => {
    res.json({ sub: res.locals.principal.sub, id: req.params.id });
  });
  app.get('/realm', ex.requireCaller({ realm: 'shop' }), (_req, res) => res.json({}));
  app.use(ex.conventionsErrors());
  return listen(http.createServer(app), 0);
}

async function fastifyApp(): Promise<Served> {
  const app = Fastify();
  await app.register(fa.conventions({ use: use() }));
  app.get<{ Params: { id: string } }>('/me/:id', { preHandler: fa.requireCaller() }, (request) => ({
    sub: request.principal.sub,
    id: request.params.id,
  }));
  app.get('/realm', { preHandler: fa.requireCaller({ realm: 'shop' }) }, () => ({}));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as { port: number }).port, close: () => app.close() };
}

async function koaApp(): Promise<Served> {
  const router = new Router();
  router.get('/me/:id', ko.requireCaller(), (ctx) => {
    ctx.body = { sub: ctx.state.principal.sub, id: ctx.params.id };
  });
  router.get('/realm', ko.requireCaller({ realm: 'shop' }), (ctx) => {
    ctx.body = {};
  });
  const app = new Koa();
  app.use(ko.conventions({ use: use() }));
  app.use(router.routes());
  return listen(http.createServer(app.callback()), 0);
}

async function honoApp(): Promise<Served> {
  const app = new Hono();
  app.use(ho.conventions({ use: use() }));
  app.get('/me/:id', ho.requireCaller(), (c) =>
    c.json({ sub: c.get('principal').sub, id: c.req.param('id') }),
  );
  app.get('/realm', ho.requireCaller({ realm: 'shop' }), (c) => c.json({}));
  app.onError(ho.conventionsErrors());
  return listen(http.createServer(getRequestListener(app.fetch)), 0);
}

const FRAMEWORKS = { express: expressApp, fastify: fastifyApp, koa: koaApp, hono: honoApp };
const servers = new Map<string, Served>();
beforeAll(async () => {
  for (const [name, start] of Object.entries(FRAMEWORKS)) servers.set(name, await start());
});
afterAll(async () => {
  for (const served of servers.values()) await served.close();
});

const get = (framework: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${servers.get(framework)!.port}${path}`, { headers });

describe.each(Object.keys(FRAMEWORKS))('%s requireCaller()', (framework) => {
  it('answers an anonymous request 401 with the error document requireAuth() gives', async () => {
    const res = await get(framework, '/me/7');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    expect(res.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({
      errors: [
        expect.objectContaining({
          status: '401',
          code: 'unauthenticated',
          detail: 'This resource needs a bearer token.',
          source: { header: 'Authorization' },
        }),
      ],
    });
  });

  it('challenges with the realm it is given', async () => {
    const res = await get(framework, '/realm');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="shop"');
  });

  it("hands the handler the caller: 200 with the token's sub", async () => {
    const token = await signHs256Token(SECRET, { sub: `${framework}-caller` });
    const res = await get(framework, '/me/7', { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: `${framework}-caller`, id: '7' });
  });
});

describe('requireCaller options', () => {
  it.each([
    ['express', ex.requireCaller],
    ['fastify', fa.requireCaller],
    ['koa', ko.requireCaller],
    ['hono', ho.requireCaller],
  ] as const)(
    '%s: a realm that cannot be a quoted challenge parameter is a TypeError naming it',
    (name, requireCaller) => {
      expect(() => requireCaller({ realm: 'a"b' })).toThrow(
        new TypeError(`${name} requireCaller: "realm" must be printable ASCII without " or \\, got "a\\"b"`),
      );
      expect(() => requireCaller({ realm: 7 as unknown as string })).toThrow(TypeError);
    },
  );
});
