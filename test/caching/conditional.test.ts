import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import {
  bodyEtag,
  cacheControlDefault,
  conditional,
  formatHttpDate,
  versionEtag,
} from '../../src/caching/index.js';
import { bodyBytes, json } from '../../src/core/response.js';
import type { ApiResponse, Context, Logger, Middleware } from '../../src/http/types.js';
import { securityHeaders } from '../../src/security/index.js';
import { requestView } from '../support/request.js';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const UPDATED = Date.UTC(2025, 5, 1, 9, 30, 0) + 250;

interface Book {
  title: string;
  version: number;
  updatedAt: number;
}

const quietLogger: Logger = { error: () => {}, warn: () => {} };

/** Test-only authentication: `X-Test-User: alice` makes alice the principal. */
const testPrincipal: Middleware = async (ctx, next) => {
  const sub = ctx.request.headers.get('x-test-user');
  if (sub !== undefined) ctx.var.principal = { sub, scopes: new Set(), claims: {} };
  return next();
};

function bookApp(options: { publicWhenAuthenticated?: boolean } = {}) {
  const books = new Map<string, Book>([['1', { title: 'Dune', version: 3, updatedAt: UPDATED }]]);
  const runs = { get: 0, patch: 0, notes: 0 };
  const validators = (ctx: Context<{ id: string }>) => {
    const book = books.get(ctx.params.id);
    return book && { etag: versionEtag(book.version), lastModified: book.updatedAt };
  };
  const app = createApp({
    use: [securityHeaders(), cacheControlDefault(), testPrincipal],
    logger: quietLogger,
  });
  app.route({
    method: 'GET',
    path: '/books/{id}',
    use: [
      conditional({
        validators,
        policy: { scope: 'public', maxAge: 60, publicWhenAuthenticated: options.publicWhenAuthenticated },
        now: () => NOW,
      }),
    ],
    handler: (ctx) => {
      runs.get++;
      const book = books.get(ctx.params.id);
      return json(200, { data: { type: 'books', id: ctx.params.id, attributes: { title: book?.title } } });
    },
  });
  app.route({
    method: 'PATCH',
    path: '/books/{id}',
    use: [conditional({ validators, requireIfMatch: true, now: () => NOW })],
    handler: (ctx) => {
      runs.patch++;
      const book = books.get(ctx.params.id)!;
      book.title = `${book.title}!`;
      book.version++;
      return json(
        200,
        { data: { id: ctx.params.id, title: book.title } },
        { etag: versionEtag(book.version) },
      );
    },
  });
  app.route({
    method: 'GET',
    path: '/notes/{id}',
    use: [conditional({ policy: { scope: 'private', noCache: true }, now: () => NOW })],
    handler: (ctx) => {
      runs.notes++;
      const book = books.get(ctx.params.id);
      if (book === undefined) return json(404, { errors: [] });
      return json(
        200,
        { data: { id: ctx.params.id, title: book.title } },
        {
          'content-location': `/notes/${ctx.params.id}`,
          'x-custom': 'dropped on 304',
        },
      );
    },
  });
  return { app, books, runs };
}

const get = (path: string, headers: Record<string, string> = {}) => requestView('GET', path, { headers });
const headersOf = (response: ApiResponse) => {
  const { 'x-request-id': _id, ...rest } = response.headers;
  return rest;
};

describe('when a route supplies its validators cheaply', () => {
  it('a GET gets ETag, Last-Modified, the cache policy and Vary: Accept', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/books/1'));
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      etag: '"3"',
      'last-modified': formatHttpDate(UPDATED),
      'cache-control': 'public, max-age=60',
      vary: 'Accept',
      'content-type': 'application/vnd.api+json',
    });
  });

  it('a matching If-None-Match gets 304 with the kept headers, no body, and the handler never runs', async () => {
    const { app, runs } = bookApp();
    const response = await app.handle(get('/books/1', { 'if-none-match': 'W/"2", "3"' }));
    expect(response.status).toBe(304);
    expect(response.json).toBeUndefined();
    expect(response.raw).toBeUndefined();
    expect(runs.get).toBe(0);
    expect(response.headers).toMatchObject({
      etag: '"3"',
      'last-modified': formatHttpDate(UPDATED),
      'cache-control': 'public, max-age=60',
      vary: 'Accept',
      'x-content-type-options': 'nosniff',
      'strict-transport-security': expect.any(String),
    });
    expect(response.headers.date).toMatch(/ GMT$/);
    expect(response.headers['content-type']).toBeUndefined();
    expect(response.headers['content-length']).toBeUndefined();
  });

  it('an If-Modified-Since not older than Last-Modified gets 304; an older one gets 200', async () => {
    const { app } = bookApp();
    const notNewer = await app.handle(get('/books/1', { 'if-modified-since': formatHttpDate(UPDATED) }));
    expect(notNewer.status).toBe(304);
    const older = await app.handle(get('/books/1', { 'if-modified-since': formatHttpDate(UPDATED - 1000) }));
    expect(older.status).toBe(200);
    const invalid = await app.handle(get('/books/1', { 'if-modified-since': 'not a date' }));
    expect(invalid.status).toBe(200);
  });

  it('a stale If-None-Match gets the full 200', async () => {
    const { app, runs } = bookApp();
    const response = await app.handle(get('/books/1', { 'if-none-match': '"2"' }));
    expect(response.status).toBe(200);
    expect(runs.get).toBe(1);
  });

  it('HEAD gets the same headers as GET, for 200 and for 304', async () => {
    const { app } = bookApp();
    for (const conditionalHeaders of [{}, { 'if-none-match': '"3"' }] as Record<string, string>[]) {
      const getResponse = await app.handle(get('/books/1', conditionalHeaders));
      const headResponse = await app.handle(requestView('HEAD', '/books/1', { headers: conditionalHeaders }));
      const length = bodyBytes(getResponse)?.byteLength;
      expect(headResponse.status).toBe(getResponse.status);
      expect(headersOf(headResponse)).toEqual({
        ...headersOf(getResponse),
        ...(length === undefined ? {} : { 'content-length': String(length) }),
      });
      expect(headResponse.json).toBeUndefined();
    }
  });

  it('a Last-Modified in the future is sent as now (RFC 9110 section 8.8.2.1)', async () => {
    const { app, books } = bookApp();
    books.get('1')!.updatedAt = NOW + 3_600_000;
    const response = await app.handle(get('/books/1'));
    expect(response.headers['last-modified']).toBe(formatHttpDate(NOW));
  });

  it('a missing resource with If-Match: * gets 412 rather than running the handler', async () => {
    const { app, runs } = bookApp();
    const response = await app.handle(requestView('PATCH', '/books/9', { headers: { 'if-match': '*' } }));
    expect(response.status).toBe(412);
    expect(runs.patch).toBe(0);
  });
});

describe('when a write requires If-Match', () => {
  it('no If-Match gets 428 with an error document, and nothing is written', async () => {
    const { app, runs, books } = bookApp();
    const response = await app.handle(requestView('PATCH', '/books/1'));
    expect(response.status).toBe(428);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json).toEqual({
      errors: [
        expect.objectContaining({
          status: '428',
          code: 'precondition-required',
          source: { header: 'If-Match' },
        }),
      ],
    });
    expect(runs.patch).toBe(0);
    expect(books.get('1')!.version).toBe(3);
  });

  it('a stale If-Match gets 412 with an error document (problem+json when asked), and nothing is written', async () => {
    const { app, runs, books } = bookApp();
    const response = await app.handle(
      requestView('PATCH', '/books/1', {
        headers: { 'if-match': '"2"', accept: 'application/vnd.api+json, application/problem+json' },
      }),
    );
    expect(response.status).toBe(412);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.json).toMatchObject({ status: 412, code: 'precondition-failed' });
    expect(runs.patch).toBe(0);
    expect(books.get('1')).toMatchObject({ title: 'Dune', version: 3 });
  });

  it('a weak If-Match never matches (strong comparison)', async () => {
    const { app } = bookApp();
    const response = await app.handle(requestView('PATCH', '/books/1', { headers: { 'if-match': 'W/"3"' } }));
    expect(response.status).toBe(412);
  });

  it('a current If-Match runs the write and answers with the new ETag', async () => {
    const { app, runs } = bookApp();
    const response = await app.handle(requestView('PATCH', '/books/1', { headers: { 'if-match': '"3"' } }));
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"4"');
    expect(runs.patch).toBe(1);
    const again = await app.handle(requestView('PATCH', '/books/1', { headers: { 'if-match': '"3"' } }));
    expect(again.status).toBe(412);
    expect(runs.patch).toBe(1);
  });

  it('requireIfMatch without validators is refused at start-up', () => {
    expect(() => conditional({ requireIfMatch: true })).toThrow(TypeError);
  });
});

describe('when the request is authenticated', () => {
  it('a public policy is downgraded to private and Vary names Authorization', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/books/1', { 'x-test-user': 'alice' }));
    expect(response.headers['cache-control']).toBe('private, max-age=60');
    expect(response.headers.vary).toBe('Accept, Authorization');
  });

  it('an Authorization header alone counts as authenticated', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/books/1', { authorization: 'Bearer xyz' }));
    expect(response.headers['cache-control']).toBe('private, max-age=60');
  });

  it('the 304 follows the same rule', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/books/1', { 'x-test-user': 'alice', 'if-none-match': '"3"' }));
    expect(response.status).toBe(304);
    expect(response.headers['cache-control']).toBe('private, max-age=60');
  });

  it('stays public when the route says so explicitly', async () => {
    const { app } = bookApp({ publicWhenAuthenticated: true });
    const response = await app.handle(get('/books/1', { 'x-test-user': 'alice' }));
    expect(response.headers['cache-control']).toBe('public, max-age=60');
  });
});

describe('when the ETag is computed from the serialized body', () => {
  it('a GET gets a strong ETag of the body bytes', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/notes/1'));
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe(bodyEtag(bodyBytes(response)!));
    expect(response.headers['cache-control']).toBe('private, no-cache');
  });

  it('a matching If-None-Match gets 304 with no body, keeping Content-Location and dropping other fields', async () => {
    const { app } = bookApp();
    const first = await app.handle(get('/notes/1'));
    const response = await app.handle(get('/notes/1', { 'if-none-match': first.headers.etag! }));
    expect(response.status).toBe(304);
    expect(response.json).toBeUndefined();
    expect(response.raw).toBeUndefined();
    expect(response.headers).toMatchObject({
      etag: first.headers.etag,
      'content-location': '/notes/1',
      'cache-control': 'private, no-cache',
      vary: 'Accept',
      'x-frame-options': 'DENY',
    });
    expect(response.headers['x-custom']).toBeUndefined();
    expect(response.headers['content-type']).toBeUndefined();
  });

  it('a stale If-Match on GET gets 412', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/notes/1', { 'if-match': '"nope"' }));
    expect(response.status).toBe(412);
  });

  it('errors pass through untouched: no ETag, still no-store', async () => {
    const { app } = bookApp();
    const response = await app.handle(get('/notes/404', { 'if-none-match': '*' }));
    expect(response.status).toBe(404);
    expect(response.headers.etag).toBeUndefined();
  });

  it('weak: true makes the tags weak', async () => {
    const app = createApp({ logger: quietLogger });
    app.route({
      method: 'GET',
      path: '/w',
      use: [conditional({ weak: true })],
      handler: () => json(200, { a: 1 }),
    });
    const response = await app.handle(get('/w'));
    expect(response.headers.etag).toMatch(/^W\/"/);
    expect((await app.handle(get('/w', { 'if-none-match': response.headers.etag! }))).status).toBe(304);
  });

  it('for any two resource states, the ETag changes iff the representation changes', async () => {
    const state = fc.dictionary(
      fc.string({ maxLength: 4 }),
      fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean()),
      {
        maxKeys: 4,
      },
    );
    await fc.assert(
      fc.asyncProperty(state, state, async (a, b) => {
        let current: unknown = a;
        const app = createApp({ logger: quietLogger });
        app.route({
          method: 'GET',
          path: '/r',
          use: [conditional()],
          handler: () => json(200, { data: current }),
        });
        const first = await app.handle(get('/r'));
        current = b;
        const second = await app.handle(get('/r'));
        const sameRepresentation = Buffer.from(bodyBytes(first)!).equals(Buffer.from(bodyBytes(second)!));
        expect(first.headers.etag === second.headers.etag).toBe(sameRepresentation);
      }),
    );
  });
});

describe('when headers are already set', () => {
  it('Vary is merged, not overwritten', async () => {
    const app = createApp({ logger: quietLogger });
    app.route({
      method: 'GET',
      path: '/v',
      use: [conditional({ vary: ['Accept', 'Accept-Language'] })],
      handler: () => json(200, {}, { vary: 'accept, Origin' }),
    });
    const response = await app.handle(get('/v', { authorization: 'Bearer t' }));
    expect(response.headers.vary).toBe('accept, Origin, Accept-Language, Authorization');
  });

  it('a Cache-Control the handler set is kept', async () => {
    const app = createApp({ logger: quietLogger });
    app.route({
      method: 'GET',
      path: '/c',
      use: [conditional({ policy: { scope: 'public', maxAge: 60 } })],
      handler: () => json(200, {}, { 'cache-control': 'max-age=5' }),
    });
    expect((await app.handle(get('/c'))).headers['cache-control']).toBe('max-age=5');
  });

  it('a malformed ETag from a handler is reported at once (500, logged)', async () => {
    const logged: unknown[] = [];
    const app = createApp({ logger: { error: (fields) => logged.push(fields.err), warn: () => {} } });
    app.route({
      method: 'GET',
      path: '/bad',
      use: [conditional()],
      handler: () => json(200, {}, { etag: 'v1' }),
    });
    const response = await app.handle(get('/bad'));
    expect(response.status).toBe(500);
    expect(logged[0]).toBeInstanceOf(TypeError);
  });

  it('a malformed ETag from validators is reported at once, before the handler runs', async () => {
    let ran = false;
    const app = createApp({ logger: quietLogger });
    app.route({
      method: 'GET',
      path: '/bad',
      use: [conditional({ validators: () => ({ etag: 'unquoted' }) })],
      handler: () => {
        ran = true;
        return json(200, {});
      },
    });
    expect((await app.handle(get('/bad'))).status).toBe(500);
    expect(ran).toBe(false);
  });

  it('bad options are refused at start-up', () => {
    expect(() => conditional({ vary: ['Accept Language'] })).toThrow(TypeError);
    expect(() => conditional({ policy: { noStore: true, maxAge: 1 } })).toThrow(TypeError);
    expect(() => cacheControlDefault({ value: 'no-store\r\nx: y' })).toThrow(TypeError);
  });
});
