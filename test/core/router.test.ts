import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json, noContent } from '../../src/core/response.js';
import { nodeClient } from '../support/clients.js';
import { recordingLogger, send } from './send.js';

function booksApp() {
  return createApp({ logger: recordingLogger() })
    .route({
      method: 'GET',
      path: '/books',
      handler: () => json(200, { data: [{ type: 'books', id: '1', attributes: { title: 'Dune' } }] }),
    })
    .route({
      method: 'GET',
      path: '/books/{id}',
      handler: (ctx) => json(200, { data: { type: 'books', id: ctx.params.id } }),
    })
    .route({ method: 'DELETE', path: '/books/{id}', handler: () => noContent() });
}

describe('the router', () => {
  describe('when no route matches the path', () => {
    it('answers 404 with an error document', async () => {
      const res = await send(booksApp(), 'GET', '/authors');
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({ status: '404', code: 'not-found' });
      expect(res.headers['content-type']).toBe('application/vnd.api+json');
    });

    it('answers 404 for a path that is only a prefix of a route', async () => {
      expect((await send(booksApp(), 'GET', '/books/1/reviews')).status).toBe(404);
      expect((await send(booksApp(), 'GET', '/')).status).toBe(404);
    });

    it('answers 404 for an empty segment (a double slash)', async () => {
      expect((await send(booksApp(), 'GET', '/books//')).status).toBe(404);
      expect((await send(booksApp(), 'GET', '//books')).status).toBe(404);
    });
  });

  describe('when the path is known but the method is not', () => {
    it('answers 405 with an Allow header listing the methods', async () => {
      const res = await send(booksApp(), 'PUT', '/books/7');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS');
      expect(res.body.errors[0]).toMatchObject({ status: '405', code: 'method-not-allowed' });
    });

    it('does not offer HEAD where there is no GET', async () => {
      const app = createApp().route({ method: 'POST', path: '/orders', handler: () => noContent() });
      const res = await send(app, 'HEAD', '/orders');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('OPTIONS, POST');
    });
  });

  describe('when the method is HEAD', () => {
    it('is served by the GET route without a body, with the same headers and Content-Length', async () => {
      const app = booksApp();
      const get = await send(app, 'GET', '/books');
      const head = await send(app, 'HEAD', '/books');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.response.json).toBeUndefined();
      expect(head.response.raw).toBeUndefined();
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      const { 'content-length': _length, 'x-request-id': _headId, ...headRest } = head.headers;
      const { 'x-request-id': _getId, ...getRest } = get.headers;
      expect(headRest).toEqual(getRest);
    });

    it('keeps the headers of an error and drops its body', async () => {
      const head = await send(booksApp(), 'HEAD', '/nothing');
      expect(head.status).toBe(404);
      expect(head.text).toBe('');
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      expect(head.headers['content-type']).toBe('application/vnd.api+json');
    });

    it('sends the same headers as GET over a real socket', async () => {
      const client = await nodeClient(booksApp());
      try {
        const get = await client.request('GET', '/books');
        const head = await client.request('HEAD', '/books');
        expect(head.status).toBe(200);
        expect(head.text).toBe('');
        const strip = (h: Readonly<Record<string, string>>) => {
          const { date: _d, 'x-request-id': _id, ...rest } = h;
          return rest;
        };
        expect(strip(head.headers)).toEqual(strip(get.headers));
        expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      } finally {
        await client.close();
      }
    });
  });

  describe('when the method is OPTIONS', () => {
    it('answers 204 with Allow and no body', async () => {
      const res = await send(booksApp(), 'OPTIONS', '/books/3');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS');
      expect(res.text).toBe('');
    });

    it('lets a route registered for OPTIONS answer itself', async () => {
      const app = createApp().route({
        method: 'OPTIONS',
        path: '/books',
        handler: () => noContent({ allow: 'GET', 'x-custom': 'yes' }),
      });
      const res = await send(app, 'OPTIONS', '/books');
      expect(res.headers['x-custom']).toBe('yes');
    });

    it('answers 404 for an unknown path', async () => {
      expect((await send(booksApp(), 'OPTIONS', '/authors')).status).toBe(404);
    });
  });

  describe('when a path has a trailing slash', () => {
    it('reaches the same route as without it, without a redirect', async () => {
      const app = booksApp();
      const plain = await send(app, 'GET', '/books/5');
      const slashed = await send(app, 'GET', '/books/5/');
      expect(slashed.status).toBe(200);
      expect(slashed.body).toEqual(plain.body);
    });

    it('treats a route registered with a trailing slash the same way', async () => {
      const app = createApp().route({
        method: 'GET',
        path: '/authors/',
        handler: () => json(200, { data: [] }),
      });
      expect((await send(app, 'GET', '/authors')).status).toBe(200);
      expect((await send(app, 'GET', '/authors/')).status).toBe(200);
    });
  });

  describe('when a static segment and a parameter compete', () => {
    const app = createApp()
      .route({ method: 'GET', path: '/users/me', handler: () => json(200, { meta: { route: 'me' } }) })
      .route({
        method: 'GET',
        path: '/users/me/orders',
        handler: () => json(200, { meta: { route: 'my orders' } }),
      })
      .route({
        method: 'GET',
        path: '/users/{id}',
        handler: (ctx) => json(200, { meta: { route: 'user', id: ctx.params.id } }),
      })
      .route({
        method: 'GET',
        path: '/users/{id}/profiles',
        handler: (ctx) => json(200, { meta: { route: 'profiles', id: ctx.params.id } }),
      });

    it('prefers the static segment', async () => {
      expect((await send(app, 'GET', '/users/me')).body.meta).toEqual({ route: 'me' });
      expect((await send(app, 'GET', '/users/me/orders')).body.meta).toEqual({ route: 'my orders' });
    });

    it('falls back to the parameter when the static branch has no match further down', async () => {
      expect((await send(app, 'GET', '/users/me/profiles')).body.meta).toEqual({
        route: 'profiles',
        id: 'me',
      });
      expect((await send(app, 'GET', '/users/42')).body.meta).toEqual({ route: 'user', id: '42' });
    });
  });

  describe('when a parameter is percent-encoded', () => {
    const app = createApp().route({
      method: 'GET',
      path: '/tags/{name}',
      handler: (ctx) => json(200, { meta: { name: ctx.params.name } }),
    });

    it('decodes it', async () => {
      const res = await send(app, 'GET', `/tags/${encodeURIComponent('sci-fi & fantasy/ü')}`);
      expect(res.body.meta.name).toBe('sci-fi & fantasy/ü');
    });

    it('answers 400 naming the parameter when the encoding is malformed', async () => {
      for (const bad of ['%E0%A4%A', '%zz', '%', 'ab%C3']) {
        const res = await send(app, 'GET', `/tags/${bad}`);
        expect(res.status, bad).toBe(400);
        expect(res.body.errors[0]).toMatchObject({
          status: '400',
          code: 'invalid-path',
          source: { parameter: 'name' },
        });
      }
    });
  });

  describe('when routes are registered', () => {
    it('refuses the same method and pattern twice', () => {
      const app = createApp().route({ method: 'GET', path: '/books', handler: () => noContent() });
      expect(() => app.route({ method: 'GET', path: '/books/', handler: () => noContent() })).toThrow(
        TypeError,
      );
    });

    it('refuses two parameter names at the same position', () => {
      const app = createApp().route({ method: 'GET', path: '/books/{id}', handler: () => noContent() });
      expect(() =>
        app.route({ method: 'DELETE', path: '/books/{bookId}', handler: () => noContent() }),
      ).toThrow(/\{bookId\}.*\{id\}/);
    });

    it('refuses an invalid method', () => {
      expect(() => createApp().route({ method: 'GE T', path: '/books', handler: () => noContent() })).toThrow(
        TypeError,
      );
    });

    it('accepts a lower-case method as its upper-case form', async () => {
      const app = createApp().route({
        method: 'get',
        path: '/books',
        handler: () => json(200, { data: [] }),
      });
      expect((await send(app, 'GET', '/books')).status).toBe(200);
    });
  });
});
