import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { requireAuth } from '../../src/auth/middleware.js';
import { json, noContent } from '../../src/core/response.js';
import { deprecation } from '../../src/deprecation/middleware.js';
import type { Principal } from '../../src/http/types.js';
import { integer, positiveInteger, strictObject, text } from '../../src/validation/codecs.js';
import { queryInteger } from '../../src/validation/query-codecs.js';
import { requestView } from '../support/request.js';
import { send } from './send.js';

const OrderInput = strictObject({ bookId: positiveInteger, quantity: integer({ min: 1, max: 100 }) });
const principal = (scopes: string[] = []): Principal => ({ sub: 'u1', scopes: new Set(scopes), claims: {} });

/** Sets a principal from a test header, standing in for `authenticate` (tested on its own). */
const fakeAuth = async (
  ctx: import('../../src/http/types.js').Context,
  next: () => Promise<import('../../src/http/types.js').ApiResponse>,
) => {
  const scopes = ctx.request.headers.get('x-test-scopes');
  if (scopes !== undefined) ctx.var.principal = principal(scopes.split(' ').filter(Boolean));
  return next();
};

function ordersApp(seen: unknown[] = []) {
  return createApp({ use: [fakeAuth] })
    .route({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: queryInteger({ min: 1 }) },
      query: { fields: text({ maxLength: 20 }) },
      handler: (ctx) => {
        seen.push({ params: ctx.params, query: ctx.query });
        return json(200, { meta: { id: ctx.params.id, fields: ctx.query.fields ?? null } });
      },
    })
    .route({
      method: 'POST',
      path: '/orders',
      auth: 'principal',
      body: { codec: OrderInput, type: 'orders' },
      bodyLimit: 100,
      responses: { 201: { description: 'The order created', body: 'resource' } },
      handler: (ctx) => json(201, { meta: { ...ctx.body, owner: ctx.var.principal.sub } }),
    })
    .route({
      method: 'DELETE',
      path: '/orders/{id}',
      auth: { scopes: ['orders:delete'] },
      handler: () => noContent(),
    });
}

const jsonBody = (value: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});

describe('declared routes', () => {
  describe('when path parameters and query are declared', () => {
    it('hands the handler decoded values', async () => {
      const seen: unknown[] = [];
      const res = await send(ordersApp(seen), 'GET', '/orders/12?fields=title');
      expect(res.status).toBe(200);
      expect(seen).toEqual([{ params: { id: 12 }, query: { fields: 'title' } }]);
    });

    it('answers 404 for a path parameter its codec refuses, without running the handler', async () => {
      const seen: unknown[] = [];
      const res = await send(ordersApp(seen), 'GET', '/orders/abc');
      expect(res.status).toBe(404);
      expect(seen).toEqual([]);
    });

    it('answers 400 naming an undeclared query parameter', async () => {
      const res = await send(ordersApp(), 'GET', '/orders/1?sort=x');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].source).toEqual({ parameter: 'sort' });
    });
  });

  describe('when a body is declared', () => {
    it('decodes it as bare JSON or as a JSON:API document', async () => {
      const app = ordersApp();
      const bare = await send(app, 'POST', '/orders', {
        ...jsonBody({ bookId: 7, quantity: 2 }),
        headers: { 'content-type': 'application/json', 'x-test-scopes': '' },
      });
      expect(bare.status).toBe(201);
      expect(bare.body.meta).toEqual({ bookId: 7, quantity: 2, owner: 'u1' });
      const doc = await send(app, 'POST', '/orders', {
        headers: { 'content-type': 'application/vnd.api+json', 'x-test-scopes': '' },
        body: JSON.stringify({ data: { type: 'orders', attributes: { bookId: 7, quantity: 2 } } }),
      });
      expect(doc.status).toBe(201);
    });

    it('answers 400 with a pointer per bad field, 415 for another media type, 413 past the route limit', async () => {
      const app = ordersApp();
      const auth = { 'x-test-scopes': '' };
      const bad = await send(app, 'POST', '/orders', {
        headers: { 'content-type': 'application/json', ...auth },
        body: '{"bookId":0}',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
        '/bookId',
        '/quantity',
      ]);
      const other = await send(app, 'POST', '/orders', {
        headers: { 'content-type': 'text/plain', ...auth },
        body: 'x',
      });
      expect(other.status).toBe(415);
      const large = await send(app, 'POST', '/orders', {
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ bookId: 1, quantity: 1, pad: 'x'.repeat(100) }),
      });
      expect(large.status).toBe(413);
    });
  });

  describe('when auth is declared', () => {
    it('answers 401 before decoding anything', async () => {
      const res = await send(ordersApp(), 'POST', '/orders', {
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    });

    it('answers 403 without the declared scopes and runs the handler with them', async () => {
      const app = ordersApp();
      expect(
        (await send(app, 'DELETE', '/orders/1', { headers: { 'x-test-scopes': 'orders:read' } })).status,
      ).toBe(403);
      expect(
        (await send(app, 'DELETE', '/orders/1', { headers: { 'x-test-scopes': 'orders:delete' } })).status,
      ).toBe(204);
    });
  });

  describe('app.routes()', () => {
    it('lists the declarations in registration order, frozen', () => {
      const routes = ordersApp().routes();
      expect(routes.map((r) => `${r.method} ${r.pattern}`)).toEqual([
        'GET /orders/{id}',
        'POST /orders',
        'DELETE /orders/{id}',
      ]);
      const post = routes[1]!;
      expect(post).toMatchObject({
        auth: 'principal',
        bodyLimit: 100,
        paramNames: [],
        body: { type: 'orders' },
      });
      expect(post.body?.codec).toBe(OrderInput);
      expect(post.responses[201]?.description).toBe('The order created');
      expect(routes[0]!.paramNames).toEqual(['id']);
      expect(routes[2]!.auth).toEqual({ scopes: ['orders:delete'] });
      expect(routes[0]!.bodyLimit).toBe(100 * 1024);
      expect(Object.isFrozen(routes)).toBe(true);
      expect(Object.isFrozen(post)).toBe(true);
      expect(Object.isFrozen(post.responses)).toBe(true);
      expect(() => (routes as unknown[]).push(post)).toThrow(TypeError);
    });

    it('is not changed by registering more routes afterwards', () => {
      const app = ordersApp();
      const before = app.routes();
      app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
      expect(before).toHaveLength(3);
      expect(app.routes()).toHaveLength(4);
    });
  });

  describe('when a declaration is malformed', () => {
    const handler = () => noContent();
    it.each([
      [
        { method: 'GET', path: '/books/{id}', params: { nope: positiveInteger }, handler },
        'params names {nope}',
      ],
      [{ method: 'GET', path: '/books', query: { page: 'x' }, handler }, 'query.page must be an io-ts codec'],
      [{ method: 'POST', path: '/books', body: { codec: OrderInput, type: '' }, handler }, 'body.type'],
      [{ method: 'POST', path: '/books', bodyLimit: -1, handler }, 'bodyLimit'],
      [{ method: 'GET', path: '/books', auth: 'admin', handler }, 'auth must be'],
      [{ method: 'GET', path: '/books', produces: ['csv'], handler }, 'produces'],
      [{ method: 'GET', path: '/books', responses: { 99: { description: 'x' } }, handler }, 'status'],
      [
        { method: 'GET', path: '/books', deprecated: { since: '2026-01-01', sunset: '2025-01-01' }, handler },
        'deprecated: deprecation: "sunset"',
      ],
    ])('throws a TypeError naming the route (%#)', (definition, message) => {
      expect(() => createApp().route(definition as never)).toThrow(TypeError);
      expect(() => createApp().route(definition as never)).toThrow(
        new RegExp(`Route [A-Z]+ /books.*${message.replace(/[{}]/g, '\\$&')}`),
      );
    });
  });

  describe('when a route declares the media types it produces', () => {
    const app = createApp()
      .route({
        method: 'GET',
        path: '/reports',
        produces: ['text/csv', 'application/json'],
        handler: () => ({ status: 200, headers: {}, raw: 'id,total\n1,2\n' }),
      })
      .route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });

    it('negotiates on its own types and labels a raw body with the chosen one', async () => {
      const res = await app.handle(requestView('GET', '/reports', { headers: { accept: 'text/csv' } }));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv');
    });

    it('answers 406 for a type it does not produce, naming its own types', async () => {
      const res = await send(app, 'GET', '/reports', { headers: { accept: 'application/vnd.api+json' } });
      expect(res.status).toBe(406);
      expect(res.body.errors[0].detail).toContain('text/csv, application/json');
    });

    it('leaves other routes on JSON:API and JSON', async () => {
      expect((await send(app, 'GET', '/books', { headers: { accept: 'text/csv' } })).status).toBe(406);
    });
  });

  it('runs the deprecation its deprecated field declares, as the deprecation middleware would', async () => {
    const deprecated = { since: '2025-01-01', sunset: '2030-01-01', successor: '/v2/books/{id}' };
    const app = createApp().route({
      method: 'GET',
      path: '/books/{id}',
      auth: 'principal',
      deprecated,
      handler: () => noContent(),
    });
    const refused = await send(app, 'GET', '/books/7');
    expect(refused.status).toBe(401);
    expect(refused.headers).toMatchObject({
      deprecation: '@1735689600',
      sunset: 'Tue, 01 Jan 2030 00:00:00 GMT',
      link: '</v2/books/7>; rel="successor-version"',
    });
    // Without auth, the same headers as the middleware in `use`, and the same contract for the document.
    const declared = createApp().route({
      method: 'GET',
      path: '/books/{id}',
      deprecated,
      handler: () => noContent(),
    });
    const layered = createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [deprecation(deprecated)],
      handler: () => noContent(),
    });
    const [fromField, fromLayer] = [
      await send(declared, 'GET', '/books/7'),
      await send(layered, 'GET', '/books/7'),
    ];
    expect(fromField.status).toBe(204);
    for (const name of ['deprecation', 'sunset', 'link'])
      expect(fromField.headers[name]).toBe(fromLayer.headers[name]);
    expect(declared.routes()[0]!.contracts).toEqual(layered.routes()[0]!.contracts);
  });

  it('types what requireAuth adds (see declared-route.test-d.ts) and runs it as a layer', async () => {
    const app = createApp({ use: [fakeAuth] }).route({
      method: 'GET',
      path: '/me',
      use: [requireAuth()],
      handler: (ctx) => json(200, { meta: { sub: ctx.var.principal.sub } }),
    });
    expect((await send(app, 'GET', '/me')).status).toBe(401);
    expect((await send(app, 'GET', '/me', { headers: { 'x-test-scopes': '' } })).body.meta).toEqual({
      sub: 'u1',
    });
  });
});
