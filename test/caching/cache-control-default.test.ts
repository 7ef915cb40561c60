import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { cacheControlDefault, conditional, versionEtag } from '../../src/caching/index.js';
import { json, noContent } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import { securityHeaders } from '../../src/security/index.js';
import { requestView } from '../support/request.js';

function app() {
  const application = createApp({
    use: [securityHeaders(), cacheControlDefault()],
    logger: { error: () => {}, warn: () => {} },
  });
  const validators = () => ({ etag: versionEtag(1), lastModified: Date.UTC(2025, 0, 1) });
  application
    .route({
      method: 'GET',
      path: '/books',
      use: [conditional({ policy: { scope: 'public', maxAge: 60 } })],
      handler: () => json(200, { data: [] }),
    })
    .route({
      method: 'GET',
      path: '/books/{id}',
      use: [conditional({ validators, policy: { scope: 'public', maxAge: 60 } })],
      handler: (ctx) => {
        if (ctx.params.id === 'x') throw new ApiError(404);
        return json(200, { data: { id: ctx.params.id } });
      },
    })
    .route({
      method: 'PATCH',
      path: '/books/{id}',
      use: [conditional({ validators, requireIfMatch: true })],
      handler: () => json(200, { data: {} }, { etag: versionEtag(2) }),
    })
    .route({ method: 'DELETE', path: '/books/{id}', handler: () => noContent() })
    .route({
      method: 'POST',
      path: '/books',
      handler: () => {
        throw new Error('boom');
      },
    });
  return application;
}

describe('every response says whether it may be cached', () => {
  it('a response without Cache-Control gets no-store; one with a policy keeps it', async () => {
    const application = app();
    expect((await application.handle(requestView('DELETE', '/books/1'))).headers['cache-control']).toBe(
      'no-store',
    );
    expect((await application.handle(requestView('OPTIONS', '/books'))).headers['cache-control']).toBe(
      'no-store',
    );
    expect((await application.handle(requestView('GET', '/books'))).headers['cache-control']).toBe(
      'public, max-age=60',
    );
  });

  it('another default can be chosen', async () => {
    const application = createApp({ use: [cacheControlDefault({ value: 'private, no-cache' })] });
    application.route({ method: 'GET', path: '/books', handler: () => json(200, {}) });
    expect((await application.handle(requestView('GET', '/books'))).headers['cache-control']).toBe(
      'private, no-cache',
    );
  });

  it('holds for any request: successes, 304, 404, 405, 406, 412, 428, 500, OPTIONS and HEAD', async () => {
    const application = app();
    const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'PUT');
    const path = fc.constantFrom('/books', '/books/1', '/books/x', '/authors', '/books/1/');
    const headers = fc.record(
      {
        'if-none-match': fc.constantFrom('"1"', '*', '"2"', 'junk'),
        'if-match': fc.constantFrom('"1"', '"2"', '*'),
        'if-modified-since': fc.constantFrom('Wed, 01 Jan 2025 00:00:00 GMT', 'garbage'),
        accept: fc.constantFrom('application/json', 'text/html', 'application/problem+json', '*/*'),
        authorization: fc.constant('Bearer t'),
      },
      { requiredKeys: [] },
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(method, path, headers, async (m, p, h) => {
        const response = await application.handle(requestView(m, p, { headers: h }));
        seen.add(response.status);
        expect(response.headers['cache-control']).toMatch(/^(?:no-store|public|private)/);
        expect(response.headers.date).toMatch(/ GMT$/);
      }),
      {
        numRuns: 400,
        // Every status the test names is among the runs, whatever the seed: one example each.
        examples: [
          ['GET', '/books/1', {}],
          ['DELETE', '/books/1', {}],
          ['GET', '/books/1', { 'if-none-match': '*' }],
          ['GET', '/books/x', {}],
          ['PUT', '/books', {}],
          ['GET', '/books/1', { accept: 'text/html' }],
          ['PATCH', '/books/1', { 'if-match': '"2"' }],
          ['PATCH', '/books/1', {}],
          ['POST', '/books', {}],
        ],
      },
    );
    for (const status of [200, 204, 304, 404, 405, 406, 412, 428, 500])
      expect(seen, String(status)).toContain(status);
  });
});
