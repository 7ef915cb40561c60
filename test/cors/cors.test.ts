import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { conditional, versionEtag } from '../../src/caching/index.js';
import { json } from '../../src/core/response.js';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, type CorsOptions, cors } from '../../src/cors/index.js';
import { ApiError } from '../../src/errors/api-error.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { memoryRateLimitStore, rateLimit } from '../../src/ratelimit/index.js';
import { securityHeaders } from '../../src/security/index.js';
import { recordingLogger, send } from '../core/send.js';

const APP = 'https://app.example';
const EXPOSED =
  'ETag, Location, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset, Link, Idempotent-Replayed, X-Request-Id, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Accept-Encoding';

/** An API with every kind of answer: 200, 304, 412, 428, 429, 401, 404, 405, 500. */
function api(options: CorsOptions = { origins: [APP] }, quota = 1000) {
  let version = 1;
  const app = createApp({
    logger: recordingLogger(),
    use: [
      securityHeaders(),
      cors(options),
      rateLimit({ policies: [{ name: 'default', quota, windowSeconds: 60 }], store: memoryRateLimitStore() }),
    ],
  });
  const versioned = conditional({ validators: () => ({ etag: versionEtag(version) }), requireIfMatch: true });
  app.route({
    method: 'GET',
    path: '/notes/{id}',
    use: [versioned],
    handler: () => json(200, { data: { type: 'notes', id: '1' } }),
  });
  app.route({
    method: 'PATCH',
    path: '/notes/{id}',
    use: [versioned],
    handler: () => {
      version++;
      return json(200, { data: { type: 'notes', id: '1' } });
    },
  });
  app.route({
    method: 'GET',
    path: '/private',
    handler: () => {
      throw new ApiError(401, { detail: 'Who are you?', headers: { 'www-authenticate': 'Bearer' } });
    },
  });
  app.route({
    method: 'GET',
    path: '/broken',
    handler: () => {
      throw new Error('internal detail');
    },
  });
  return app;
}

const from = (origin: string, headers: Record<string, string> = {}) => ({ headers: { origin, ...headers } });

describe('cors(): options, checked once', () => {
  it.each<[string, CorsOptions, RegExp]>([
    ["'*' with credentials", { origins: '*', credentials: true }, /cannot go with credentials/],
    [
      'an origin with a trailing slash',
      { origins: ['https://app.example/'] },
      /did you mean https:\/\/app.example\?/,
    ],
    ['an origin with a path', { origins: ['https://app.example/app'] }, /serialized origin/],
    [
      'a default port written out',
      { origins: ['https://app.example:443'] },
      /did you mean https:\/\/app.example\?/,
    ],
    ['the opaque origin', { origins: ['null'] }, /serialized origin/],
    ['a host name only', { origins: ['app.example'] }, /serialized origin/],
    ['no origins', {} as CorsOptions, /origins must be/],
    ['a max age past a day', { origins: [APP], maxAgeSeconds: 86_401 }, /maxAgeSeconds/],
    ['a header name with a space', { origins: [APP], allowHeaders: ['X Tenant'] }, /allowHeaders/],
    ['exposed headers as a string', { origins: [APP], exposeHeaders: 'X-Tenant' as never }, /exposeHeaders/],
  ])('throws a TypeError for %s', (_what, options, message) => {
    expect(() => cors(options)).toThrow(TypeError);
    expect(() => cors(options)).toThrow(message);
  });

  it('exposes the conventions’ response headers and allows their request headers, as documented', () => {
    expect(CORS_EXPOSED_HEADERS.join(', ')).toBe(EXPOSED);
    expect(CORS_ALLOWED_HEADERS).toEqual(
      expect.arrayContaining([
        'Authorization',
        'Content-Type',
        'If-Match',
        'If-None-Match',
        'Idempotency-Key',
      ]),
    );
  });
});

describe('cors() on an allowed origin', () => {
  it('answers a preflight from the route table: 204, the path’s Allow as the allowed methods, no body', async () => {
    const res = await send(
      api(),
      'OPTIONS',
      '/notes/1',
      from(APP, {
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'if-match,authorization,content-type',
      }),
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, OPTIONS, PATCH',
      'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
      'access-control-max-age': '7200',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('leaves a preflight to an unknown path its 404, which fails in the browser', async () => {
    const res = await send(
      api(),
      'OPTIONS',
      '/nowhere',
      from(APP, { 'access-control-request-method': 'GET' }),
    );
    expect(res.status).toBe(404);
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it.each([
    ['200', 'GET', '/notes/1', {}, 200],
    ['304', 'GET', '/notes/1', { 'if-none-match': '"1"' }, 304],
    ['412', 'PATCH', '/notes/1', { 'if-match': '"0"' }, 412],
    ['428', 'PATCH', '/notes/1', {}, 428],
    ['401', 'GET', '/private', {}, 401],
    ['404', 'GET', '/nowhere', {}, 404],
    ['405', 'DELETE', '/notes/1', {}, 405],
    ['500', 'GET', '/broken', {}, 500],
  ])('puts the CORS headers on a %s', async (_status, method, path, headers, status) => {
    const res = await send(api(), method, path, from(APP, headers));
    expect(res.status).toBe(status);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-expose-headers']).toBe(EXPOSED);
    expect(res.headers.vary).toMatch(/(^|, )Origin$/);
  });

  it('puts them on a 429 too, and does not count preflights against the quota', async () => {
    const app = api({ origins: [APP] }, 2);
    for (let i = 0; i < 5; i++) {
      const preflight = await send(
        app,
        'OPTIONS',
        '/notes/1',
        from(APP, { 'access-control-request-method': 'PATCH' }),
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.ratelimit).toBeUndefined();
    }
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send(app, 'GET', '/notes/1', from(APP))).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await send(app, 'GET', '/notes/1', from(APP));
    expect(limited.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': EXPOSED,
    });
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('adds Origin to the Vary a layer inside set, once', async () => {
    const app = createApp({ use: [cors({ origins: [APP] })] }).route({
      method: 'GET',
      path: '/v',
      handler: () => ({ status: 200, headers: { vary: 'Accept, origin' }, json: { meta: {} } }),
    });
    expect((await send(app, 'GET', '/v', from(APP))).headers.vary).toBe('Accept, origin');
    const other = createApp({ use: [cors({ origins: [APP] })] }).route({
      method: 'GET',
      path: '/v',
      handler: () => ({ status: 200, headers: { vary: 'Accept' }, json: { meta: {} } }),
    });
    expect((await send(other, 'GET', '/v', from(APP))).headers.vary).toBe('Accept, Origin');
  });

  it('says credentials are allowed, with the origin named, when asked to', async () => {
    const res = await send(api({ origins: [APP], credentials: true }), 'GET', '/notes/1', from(APP));
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });

  it('lets a test of the origin decide, and adds the extra headers named', async () => {
    const app = api({
      origins: (o) => o.endsWith('.preview.example'),
      exposeHeaders: ['X-Tenant'],
      allowHeaders: ['X-Tenant'],
    });
    const res = await send(app, 'GET', '/notes/1', from('https://pr-12.preview.example'));
    expect(res.headers['access-control-allow-origin']).toBe('https://pr-12.preview.example');
    expect(res.headers['access-control-expose-headers']).toBe(`${EXPOSED}, X-Tenant`);
    const preflight = await send(
      app,
      'OPTIONS',
      '/notes/1',
      from('https://pr-12.preview.example', { 'access-control-request-method': 'GET' }),
    );
    expect(preflight.headers['access-control-allow-headers']).toBe(
      `${CORS_ALLOWED_HEADERS.join(', ')}, X-Tenant`,
    );
  });
});

describe('cors() on other requests', () => {
  it('gives a disallowed origin no permission, answers it as usual, and says the answer varies', async () => {
    const res = await send(api(), 'GET', '/notes/1', from('https://evil.example'));
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept, Origin');
    const preflight = await send(
      api(),
      'OPTIONS',
      '/notes/1',
      from('https://evil.example', { 'access-control-request-method': 'PATCH' }),
    );
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('says only that the answer varies on Origin when there is none', async () => {
    const res = await send(api(), 'GET', '/notes/1');
    expect(res.headers.vary).toBe('Accept, Origin');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it("answers every request with `*` and no Vary with origins: '*'", async () => {
    for (const init of [from(APP), from('https://anyone.example'), {}]) {
      const res = await send(api({ origins: '*' }), 'GET', '/notes/1', init);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers.vary).toBe('Accept');
    }
  });
});

describe('cors() in the OpenAPI document', () => {
  it('declares Access-Control-Allow-Origin, the exposed headers and Vary on every response', () => {
    const app = api();
    const document = openApiDocument(app.routes(), { title: 'Notes', version: '1' });
    for (const [path, item] of Object.entries(document.paths ?? {}))
      for (const [method, operation] of Object.entries(item)) {
        if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
        for (const [status, response] of Object.entries(operation.responses)) {
          const headers = Object.keys((response as { headers?: object }).headers ?? {}).map((h) =>
            h.toLowerCase(),
          );
          expect(headers, `${method} ${path} ${status}`).toEqual(
            expect.arrayContaining(['access-control-allow-origin', 'access-control-expose-headers', 'vary']),
          );
        }
      }
  });
});
