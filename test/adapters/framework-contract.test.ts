/**
 * The whole contract on each framework's own routes (issue: not-found and not-allowed answers, bodies
 * the framework parsed, cache policies, request ids): real Express, Fastify, Koa (@koa/router,
 * @koa/bodyparser) and Hono apps over sockets, each with its own body parser mounted.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import bodyParser from '@koa/bodyparser';
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
import { conditional } from '../../src/caching/index.js';
import type { Context, Middleware } from '../../src/http/types.js';
import { idempotency, memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { securityHeaders } from '../../src/security/index.js';
import { decodeJsonBody, integer, strictObject } from '../../src/validation/index.js';

const Thing = strictObject({ size: integer({ min: 1, max: 9 }) });
const use = (): Middleware[] => [
  securityHeaders(),
  conditional({ policy: { scope: 'public', maxAge: 60 } }),
  idempotency({ store: memoryIdempotencyStore() }),
];
/** The body through the library's decoder, whoever parsed it before. */
const decode = (ctx: Context | undefined) => decodeJsonBody(ctx!, { codec: Thing, type: 'things' });

const servers: Array<[string, Served]> = [];

async function expressApp(): Promise<Served> {
  const e = express();
  e.use(ex.conventions({ use: use() }));
  e.use(express.json());
  e.get('/things/:id', (req, res) => res.json({ id: req.params.id }));
  e.post('/things', async (req, res, next) => {
    try {
      res.status(201).json(await decode(ex.conventionsContext(req)));
    } catch (error) {
      next(error);
    }
  });
  e.use(ex.conventionsNotFound());
  e.use(ex.conventionsErrors());
  return listen(http.createServer(e), 0);
}

async function fastifyApp(): Promise<Served> {
  const f = Fastify();
  await f.register(fa.conventions({ use: use() }));
  f.get<{ Params: { id: string } }>('/things/:id', async (request) => ({ id: request.params.id }));
  f.post('/things', async (request, reply) =>
    reply.code(201).send(await decode(fa.conventionsContext(request))),
  );
  f.delete('/gone/:id', async (_request, reply) => reply.code(204).send());
  f.setNotFoundHandler(fa.conventionsNotFound());
  await f.listen({ port: 0, host: '127.0.0.1' });
  const address = f.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, close: () => f.close() };
}

async function koaApp(): Promise<Served> {
  const router = new Router();
  router.get('/things/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  router.post('/things', async (ctx) => {
    ctx.status = 201;
    ctx.body = await decode(ko.conventionsContext(ctx));
  });
  const k = new Koa();
  k.use(ko.conventions({ use: use() }));
  k.use(bodyParser());
  k.use(router.routes());
  k.use(ko.conventionsNotFound({ routers: [router] }));
  return listen(http.createServer(k.callback()), 0);
}

async function honoApp(): Promise<Served> {
  const h = new Hono();
  h.use(ho.conventions({ use: use() }));
  h.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
  h.post('/things', async (c) => {
    await c.req.json(); // the framework's own parse first, then the library's decoder
    return c.json(await decode(ho.conventionsContext(c)), 201);
  });
  h.notFound(ho.conventionsNotFound(h));
  h.onError(ho.conventionsErrors());
  return listen(http.createServer(getRequestListener(h.fetch)), 0);
}

beforeAll(async () => {
  servers.push(['express', await expressApp()], ['fastify', await fastifyApp()]);
  servers.push(['koa', await koaApp()], ['hono', await honoApp()]);
});
afterAll(async () => {
  for (const [, served] of servers) await served.close();
});

const each = (test: (name: string, base: string) => Promise<void>) => async () => {
  for (const [name, { port }] of servers) await test(name, `http://127.0.0.1:${port}`);
};

/** An error document with the primitives' headers and `no-store`; its first error. */
async function errorOf(response: Response, name: string, status: number) {
  expect(response.status, name).toBe(status);
  expect(response.headers.get('content-type'), name).toBe('application/vnd.api+json');
  expect(response.headers.get('cache-control'), name).toBe('no-store');
  expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
  const document = await response.json();
  expect(document.errors[0].status, name).toBe(String(status));
  return document.errors[0];
}

describe('a request no route takes', () => {
  it(
    'is 404 as an error document with the primitives’ headers and no-store, in every framework',
    each(async (name, base) => {
      const error = await errorOf(await fetch(`${base}/nope`), name, 404);
      expect(error.detail, name).toBe('No resource exists at this path.');
    }),
  );

  it(
    'is 405 with Allow for a known path and another method; OPTIONS gets the Allow',
    each(async (name, base) => {
      const response = await fetch(`${base}/things/1`, { method: 'DELETE' });
      expect(response.headers.get('allow'), name).toBe('GET, HEAD, OPTIONS');
      await errorOf(response, name, 405);
      if (name === 'express') return; // Express answers OPTIONS itself, before any handler of yours
      const options = await fetch(`${base}/things/1`, { method: 'OPTIONS' });
      expect(options.status, name).toBe(204);
      expect(options.headers.get('allow'), name).toBe('GET, HEAD, OPTIONS');
    }),
  );

  it(
    'is 404, never a 405 whose Allow names its method, when the router takes the path only without its trailing slash',
    each(async (name, base) => {
      // Hono and Fastify take `/things/1` but not `/things/1/` by default; Express and Koa take both.
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${base}/things/1/`, { method });
        if (response.status === 200) continue;
        expect(response.headers.get('allow'), `${name} ${method}`).toBeNull();
        expect(response.status, `${name} ${method}`).toBe(404);
        if (method === 'GET') await errorOf(response, name, 404);
      }
    }),
  );
});

describe('a body the framework’s parser read', () => {
  const post = (base: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it(
    'is decoded by decodeJsonBody with or without an Idempotency-Key',
    each(async (name, base) => {
      for (const key of [{} as Record<string, string>, { 'idempotency-key': `k-${name}-${Math.random()}` }]) {
        const response = await post(base, '{"size":3}', key);
        expect(response.status, name).toBe(201);
        expect(await response.json(), name).toEqual({ size: 3 });
      }
      const invalid = await errorOf(await post(base, '{"size":30}'), name, 400);
      expect(invalid.source, name).toEqual({ pointer: '/size' });
    }),
  );

  it(
    'is the core’s 400 malformed-json when it is not JSON, with or without a key',
    each(async (name, base) => {
      const details = new Set<string>();
      for (const key of [{} as Record<string, string>, { 'idempotency-key': `m-${name}-${Math.random()}` }]) {
        const error = await errorOf(await post(base, '{"size":', key), name, 400);
        expect(error.code, name).toBe('malformed-json');
        details.add(error.detail);
      }
      if (name !== 'fastify') expect(details.size, `${name}: ${[...details]}`).toBe(1);
    }),
  );

  it('on Fastify, a body with an empty Content-Type reaches a route that takes none, as in the core', async () => {
    const port = servers.find(([name]) => name === 'fastify')![1].port;
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          port,
          host: '127.0.0.1',
          path: '/gone/1',
          method: 'DELETE',
          headers: { 'content-type': '', 'content-length': '2' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    // Not Fastify's 415 FST_ERR_CTP_INVALID_MEDIA_TYPE: the route takes no body, so none is parsed.
    expect(status).toBe(204);
  });
});

describe('what every answer carries', () => {
  it(
    'keeps an app-wide cache policy to successful GETs: not on a POST’s 201 nor on errors',
    each(async (name, base) => {
      expect((await fetch(`${base}/things/1`)).headers.get('cache-control'), name).toBe('public, max-age=60');
      const created = await fetch(`${base}/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"size":1}',
      });
      expect(created.status, name).toBe(201);
      expect(created.headers.get('cache-control'), name).toBeNull();
      expect((await fetch(`${base}/nope`)).headers.get('cache-control'), name).toBe('no-store');
    }),
  );

  it(
    'sends X-Request-Id (the client’s when sane) and Date as createApp does',
    each(async (name, base) => {
      const own = await fetch(`${base}/things/1`);
      expect(own.headers.get('x-request-id'), name).toMatch(/^[0-9a-f-]{36}$/);
      expect(own.headers.get('date'), name).toMatch(/ GMT$/);
      const sent = await fetch(`${base}/nope`, { headers: { 'x-request-id': 'req-42' } });
      expect(sent.headers.get('x-request-id'), name).toBe('req-42');
    }),
  );
});
