import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import createError from 'http-errors';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../examples/reference-app/serve.js';
import * as ex from '../../src/adapters/express/index.js';
import * as fa from '../../src/adapters/fastify/index.js';
import * as ho from '../../src/adapters/hono/index.js';
import * as ko from '../../src/adapters/koa/index.js';
import { deprecation, movedUrls } from '../../src/deprecation/index.js';
import type { Context, Middleware } from '../../src/http/types.js';
import { securityHeaders } from '../../src/security/index.js';
import { decodeJsonBody, integer, strictObject } from '../../src/validation/index.js';

const Thing = strictObject({ size: integer({ min: 1, max: 9 }) });
const use = (): Middleware[] => [
  securityHeaders(),
  movedUrls({ table: [{ from: '/old-things/{id}', to: '/things/{id}' }] }),
  deprecation({ since: '2025-01-01', sunset: '2030-01-01', link: 'https://example.com/deprecation' }),
];
/** The body, validated by the primitive through the framework's request (bare attributes). */
const decode = (ctx: Context | undefined) => decodeJsonBody(ctx!, { codec: Thing, type: 'things' });

const servers: Array<[string, Served]> = [];

beforeAll(async () => {
  const e = express();
  e.use(ex.conventions({ use: use() }));
  e.get('/things/:id', (req, res) => res.json({ id: req.params.id }));
  e.get('/teapot', () => {
    throw createError(418, 'Short and stout.');
  });
  e.post('/things', async (req, res, next) => {
    try {
      res.status(201).json(await decode(ex.conventionsContext(req)));
    } catch (error) {
      next(error);
    }
  });
  e.use(ex.conventionsErrors());
  servers.push(['express', await listen(http.createServer(e), 0)]);

  const k = new Koa();
  k.use(ko.conventions({ use: use() }));
  k.use(async (ctx) => {
    if (ctx.path === '/teapot') ctx.throw(418, 'Short and stout.');
    if (ctx.method === 'POST') {
      ctx.status = 201;
      ctx.body = await decode(ko.conventionsContext(ctx));
    } else ctx.body = { id: ctx.path.split('/')[2] };
  });
  servers.push(['koa', await listen(http.createServer(k.callback()), 0)]);

  const h = new Hono();
  h.use(ho.conventions({ use: use() }));
  h.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
  h.get('/teapot', () => {
    throw new HTTPException(418, { message: 'Short and stout.' });
  });
  h.post('/things', async (c) => c.json(await decode(ho.conventionsContext(c)), 201));
  h.post('/echo', async (c) => c.json(await c.req.json()));
  // A SyntaxError of the app's own, after the body parsed: a bug, 500.
  h.post('/bug', async (c) => c.json(JSON.parse(JSON.stringify(await c.req.json()).slice(1))));
  h.onError(ho.conventionsErrors());
  servers.push(['hono', await listen(http.createServer(getRequestListener(h.fetch)), 0)]);

  const f = Fastify({ frameworkErrors: fa.conventionsFrameworkErrors({ use: use() }) });
  await f.register(fa.conventions({ use: use() }));
  f.get<{ Params: { id: string } }>('/things/:id', async (request) => ({ id: request.params.id }));
  f.get('/teapot', async () => {
    throw createError(418, 'Short and stout.');
  });
  // Fastify parses the body before the handler: validate what it parsed with the codec.
  f.post('/things', async (request, reply) => {
    const decoded = Thing.decode(request.body);
    if (decoded._tag === 'Left') throw Object.assign(new Error('size must be 1..9'), { statusCode: 400 });
    return reply.code(201).send(decoded.right);
  });
  await f.listen({ port: 0, host: '127.0.0.1' });
  const address = f.server.address();
  servers.push([
    'fastify',
    { port: typeof address === 'object' && address ? address.port : 0, close: () => f.close() },
  ]);
});
afterAll(async () => {
  for (const [, served] of servers) await served.close();
});

describe('primitives on the framework’s own routes', () => {
  it('moved URLs, deprecation and security headers, framework errors, body validation', async () => {
    for (const [name, { port }] of servers) {
      const base = `http://127.0.0.1:${port}`;
      const moved = await fetch(`${base}/old-things/7?x=1`, { redirect: 'manual' });
      expect(moved.status, name).toBe(308);
      expect(moved.headers.get('location'), name).toBe('/things/7?x=1');

      const thing = await fetch(`${base}/things/7`);
      expect(thing.status, name).toBe(200);
      expect(await thing.json(), name).toEqual({ id: '7' });
      expect(thing.headers.get('deprecation'), name).toBe('@1735689600');
      expect(thing.headers.get('sunset'), name).toBe('Tue, 01 Jan 2030 00:00:00 GMT');
      expect(thing.headers.get('x-frame-options'), name).toBe('DENY');

      const teapot = await fetch(`${base}/teapot`, { headers: { accept: 'application/problem+json' } });
      expect(teapot.status, name).toBe(418);
      expect(teapot.headers.get('content-type'), name).toBe('application/problem+json');
      const problem = await teapot.json();
      expect(problem.status, name).toBe(418);
      expect(problem.detail, name).toBe('Short and stout.');
      expect(teapot.headers.get('x-frame-options'), name).toBe('DENY');

      const post = (body: string) =>
        fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const good = await post('{"size":3}');
      expect(good.status, name).toBe(201);
      expect(await good.json(), name).toEqual({ size: 3 });
      const bad = await post('{"size":30}');
      expect(bad.status, name).toBe(400);
      expect(bad.headers.get('content-type'), name).toBe('application/vnd.api+json');
      expect(bad.headers.get('deprecation'), name).toBe('@1735689600');
    }
  });
});

describe('Hono’s c.req.json() on a body that is not JSON', () => {
  const post = (path: string, body: string) => {
    const port = servers.find(([name]) => name === 'hono')![1].port;
    return fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  };

  it.each([
    ['a malformed body', '{', 'The body is not valid JSON: '],
    ['an empty body', '', 'The body is empty; a JSON object is expected.'],
  ])('answers %s 400 malformed-json, as decodeJsonBody does', async (_what, body, detail) => {
    const response = await post('/echo', body);
    expect(response.status).toBe(400);
    const [error] = (await response.json()).errors;
    expect(error).toMatchObject({ code: 'malformed-json', source: { pointer: '' } });
    expect(error.detail).toContain(detail);
  });

  it('keeps a SyntaxError of the app’s own a 500, the body being JSON', async () => {
    expect((await post('/echo', '{"a":1}')).status).toBe(200);
    const response = await post('/bug', '{"a":1}');
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('SyntaxError');
  });
});

describe('requests Fastify refuses before its hooks', () => {
  // Fastify answers these from its router, before onRequest; `conventionsFrameworkErrors` as the
  // server's `frameworkErrors` puts them through the primitives (without it: Fastify's own JSON).
  it.each([
    ['a path parameter over maxParamLength (100)', `/things/${'a'.repeat(101)}`, 414],
    ['a malformed percent-encoding', '/things/%zz', 400],
  ])('answers %s with an error document through the primitives', async (_what, path, status) => {
    const port = servers.find(([name]) => name === 'fastify')![1].port;
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('deprecation')).toBe('@1735689600');
    const document = await response.json();
    expect(document.errors[0].status).toBe(String(status));
  });
});
