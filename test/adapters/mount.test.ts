import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../examples/reference-app/serve.js';
import { mountApp as expressMount } from '../../src/adapters/express/index.js';
import { mountApp as fastifyMount } from '../../src/adapters/fastify/index.js';
import { mountApp as honoMount } from '../../src/adapters/hono/index.js';
import { mountApp as koaMount } from '../../src/adapters/koa/index.js';
import { mountedReference } from '../../src/core/mount-path.js';
import { bearer, referenceApp } from '../support/reference-app.js';

const servers: Array<[string, Served]> = [];

beforeAll(async () => {
  const ex = express();
  ex.use('/api', expressMount(referenceApp().app));
  servers.push(['express', await listen(http.createServer(ex), 0)]);

  const koa = new Koa();
  koa.use(koaMount(referenceApp().app, { prefix: '/api' }));
  servers.push(['koa', await listen(http.createServer(koa.callback()), 0)]);

  const hono = new Hono();
  const mounted = honoMount(referenceApp().app, { prefix: '/api' });
  hono.all('/api', mounted);
  hono.all('/api/*', mounted);
  servers.push(['hono', await listen(http.createServer(getRequestListener(hono.fetch)), 0)]);

  const fastify = Fastify();
  await fastify.register(fastifyMount(referenceApp().app), { prefix: '/api' });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = fastify.server.address();
  servers.push([
    'fastify',
    { port: typeof address === 'object' && address ? address.port : 0, close: () => fastify.close() },
  ]);
});
afterAll(async () => {
  for (const [, served] of servers) await served.close();
});

describe('a whole app mounted under /api', () => {
  it('answers under the prefix, with Location and links under it', async () => {
    const alice = await bearer('alice-mounted');
    const owner = await bearer('1'); // user 1 of the reference app's store
    for (const [name, { port }] of servers) {
      const base = `http://127.0.0.1:${port}/api`;
      const book = await fetch(`${base}/books/1`);
      expect(book.status, name).toBe(200);
      const bookBody = await book.json();
      expect(bookBody.links.self, name).toBe('/api/books/1');
      expect(bookBody.data.links.self, name).toBe('/api/books/1');

      const list = await (await fetch(`${base}/books?author=Italo%20Calvino`)).json();
      expect(list.links.self, name).toBe('/api/books?author=Italo%20Calvino');

      const created = await fetch(`${base}/orders`, {
        method: 'POST',
        headers: { authorization: alice, 'content-type': 'application/json', 'idempotency-key': `k-${name}` },
        body: JSON.stringify({ bookId: 1, quantity: 1 }),
      });
      expect(created.status, name).toBe(201);
      expect(created.headers.get('location'), name).toBe('/api/orders/1');
      const order = await created.json();
      expect(order.data.links.self, name).toBe('/api/orders/1');
      expect(order.data.relationships.book.links.related, name).toBe('/api/books/1');

      for (const key of ['second', 'third']) {
        await fetch(`${base}/orders`, {
          method: 'POST',
          headers: {
            authorization: owner,
            'content-type': 'application/json',
            'idempotency-key': `${key}-${name}`,
          },
          body: JSON.stringify({ bookId: 2, quantity: 1 }),
        });
      }
      const page = await (
        await fetch(`${base}/users/1/orders?page[size]=1`, { headers: { authorization: owner } })
      ).json();
      expect(page.links.self, name).toBe('/api/users/1/orders?page[size]=1');
      expect(page.links.next, name).toMatch(/^\/api\/users\/1\/orders\?/);

      const again = await fetch(`http://127.0.0.1:${port}${created.headers.get('location')}`, {
        headers: { authorization: alice },
      });
      expect(again.status, name).toBe(200);

      const missing = await fetch(`${base}/nowhere`);
      expect(missing.status, name).toBe(404);
      expect(missing.headers.get('content-type'), name).toBe('application/vnd.api+json');
    }
  });
});

describe('mountedReference', () => {
  it('moves origin-relative references only (RFC 3986 section 4.2)', () => {
    expect(mountedReference('/orders/1', '/api')).toBe('/api/orders/1');
    expect(mountedReference('https://example.com/x', '/api')).toBe('https://example.com/x');
    expect(mountedReference('//cdn.example.com/x', '/api')).toBe('//cdn.example.com/x');
    expect(mountedReference('orders/1', '/api')).toBe('orders/1');
  });
});
