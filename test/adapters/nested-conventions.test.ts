/**
 * A `conventions(...)` nested inside another (app-level `authenticate`, route- or scope-level
 * `requireAuth`) shares the outer one's context: the inner primitives see the principal, both
 * layers see one request id, and a body the inner primitives read reaches the route
 * (docs/adapters.md). Real servers on loopback, one per framework.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
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
import { authenticate, requireAuth } from '../../src/auth/middleware.js';
import { hs256Verifier, signHs256Token } from '../../src/auth/verifier.js';
import { readBody } from '../../src/core/body.js';
import { defineMiddleware } from '../../src/core/compose.js';
import type { Context, Middleware } from '../../src/http/types.js';

const SECRET = 'nested-conventions-secret-of-32-bytes!';

/** Tells, in a response header, which request id the layer `name` saw. */
const sawRequestId = (name: string): Middleware =>
  defineMiddleware({
    after: (ctx, response) => ({
      ...response,
      headers: { ...response.headers, [`x-${name}-request-id`]: ctx.requestId },
    }),
  });

/** Reads the whole request body through the context, as an idempotency fingerprint would. */
const readsBody: Middleware = defineMiddleware({
  before: async (ctx) => {
    await readBody(ctx);
    return undefined;
  },
});

let ids = 0;
const outer = () =>
  ({
    use: [sawRequestId('outer'), authenticate({ verifier: hs256Verifier({ secret: SECRET }) })],
    requestId: { generate: () => `outer-${++ids}` },
  }) as const;
const inner = () =>
  ({
    use: [sawRequestId('inner'), requireAuth(), readsBody],
    requestId: { generate: () => `inner-${++ids}` },
  }) as const;

/** What the route answers: the caller and request id of the context it sees, and the body it got. */
const seen = (ctx: Context | undefined, body: unknown) => ({
  sub: ctx?.var.principal?.sub ?? null,
  requestId: ctx?.requestId ?? null,
  body: body ?? null,
});

const servers: Array<[string, Served]> = [];

beforeAll(async () => {
  const e = express();
  e.use(ex.conventions(outer()));
  e.post('/me', ex.conventions(inner()), express.json(), (req, res) => {
    res.json(seen(ex.conventionsContext(req), req.body));
  });
  e.use(ex.conventionsErrors());
  servers.push(['express', await listen(http.createServer(e), 0)]);

  const f = Fastify();
  await f.register(fa.conventions(outer()));
  await f.register(async (scope) => {
    await scope.register(fa.conventions(inner()));
    scope.post('/me', async (request) => seen(fa.conventionsContext(request), request.body));
  });
  await f.listen({ port: 0, host: '127.0.0.1' });
  const address = f.server.address();
  servers.push([
    'fastify',
    { port: typeof address === 'object' && address ? address.port : 0, close: () => f.close() },
  ]);

  const k = new Koa();
  k.use(ko.conventions(outer()));
  k.use(ko.conventions(inner()));
  k.use(async (ctx) => {
    ctx.body = seen(ko.conventionsContext(ctx), (ctx.request as { body?: unknown }).body);
  });
  servers.push(['koa', await listen(http.createServer(k.callback()), 0)]);

  const h = new Hono();
  h.use(ho.conventions(outer()));
  h.use('/me', ho.conventions(inner()));
  h.post('/me', async (c) => c.json(seen(ho.conventionsContext(c), await c.req.json())));
  h.onError(ho.conventionsErrors());
  servers.push(['hono', await listen(http.createServer(getRequestListener(h.fetch)), 0)]);
});
afterAll(async () => {
  for (const [, served] of servers) await served.close();
});

describe('a conventions(...) inside another', () => {
  it('shares the outer context: principal, request id and the body its primitives read', async () => {
    const token = await signHs256Token(SECRET, { sub: 'alice' });
    for (const [name, { port }] of servers) {
      const response = await fetch(`http://127.0.0.1:${port}/me`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"size":3}',
      });
      expect(response.status, name).toBe(200);
      const outerId = response.headers.get('x-outer-request-id');
      expect(outerId, name).toMatch(/^outer-\d+$/);
      expect(response.headers.get('x-inner-request-id'), name).toBe(outerId);
      expect(await response.json(), name).toEqual({ sub: 'alice', requestId: outerId, body: { size: 3 } });
    }
  });

  it('the inner requireAuth refuses an anonymous request, under the same request id', async () => {
    for (const [name, { port }] of servers) {
      const response = await fetch(`http://127.0.0.1:${port}/me`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"size":3}',
      });
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      const outerId = response.headers.get('x-outer-request-id');
      expect(outerId, name).toMatch(/^outer-\d+$/);
      expect(response.headers.get('x-inner-request-id'), name).toBe(outerId);
    }
  });
});
