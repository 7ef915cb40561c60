import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { Context, Middleware } from '../../src/http/types.js';
import { versioning } from '../../src/versioning/middleware.js';
import { versionedRoutes } from '../../src/versioning/routes.js';
import { requestView } from '../support/request.js';

const JSON_API = 'application/vnd.api+json';
const options = { supported: [1, 2], default: 1 } as const;

/** Answers 304, as a conditional-request layer would. */
const notModified: Middleware = async () => ({ status: 304, headers: { etag: '"v"' } });

function appWithRoutes() {
  const app = createApp();
  const echoVersion = (ctx: Context) => json(200, { data: null, meta: { version: ctx.var.apiVersion } });
  app.route({ method: 'GET', path: '/users/{id}', use: [versioning(options)], handler: echoVersion });
  app.route({ method: 'GET', path: '/v1/books/{id}', use: [versioning(options)], handler: echoVersion });
  app.route({ method: 'GET', path: '/v2/books/{id}', use: [versioning(options)], handler: echoVersion });
  app.route({
    method: 'GET',
    path: '/cached',
    use: [versioning(options), notModified],
    handler: echoVersion,
  });
  app.route({
    method: 'GET',
    path: '/missing',
    use: [versioning(options)],
    handler: () => {
      throw new ApiError(404, { detail: 'nothing here' });
    },
  });
  return app;
}

const get = (path: string, accept?: string) =>
  appWithRoutes().handle(requestView('GET', path, { headers: accept === undefined ? {} : { accept } }));

const versionOf = (response: { json?: unknown }) =>
  (response.json as { meta: { version: number } }).meta.version;

describe('versioning middleware', () => {
  describe('when the request names no version', () => {
    it('serves the default version without a version parameter, with Vary: Accept', async () => {
      const response = await get('/users/7');
      expect(response.status).toBe(200);
      expect(versionOf(response)).toBe(1);
      expect(response.headers['content-type']).toBe(JSON_API);
      expect(response.headers.vary).toBe('Accept');
    });
  });

  describe('when Accept chooses the version', () => {
    it('stores it on the context and labels Content-Type with ;version=N', async () => {
      const response = await get('/users/7', `${JSON_API};version=2`);
      expect(versionOf(response)).toBe(2);
      expect(response.headers['content-type']).toBe(`${JSON_API};version=2`);
      expect(response.headers.vary).toBe('Accept');
    });

    it('works on application/json too, with a quoted value and any parameter-name case', async () => {
      const response = await get('/users/7', 'application/json; Version="2"');
      expect(versionOf(response)).toBe(2);
      expect(response.headers['content-type']).toBe('application/json;version=2');
    });

    // The core ignores non-weight parameters when choosing the format, so charset reaches us.
    it('works with charset beside version', async () => {
      const response = await get('/users/7', 'application/json; charset=utf-8; version=2');
      expect(versionOf(response)).toBe(2);
    });

    it('answers 406 naming the supported versions for an unsupported one, with Vary: Accept', async () => {
      const response = await get('/users/7', `${JSON_API};version=3`);
      expect(response.status).toBe(406);
      expect(response.headers.vary).toBe('Accept');
      const [error] = (response.json as { errors: { code: string; detail: string; source: unknown }[] })
        .errors;
      expect(error).toMatchObject({ code: 'unsupported-version', source: { header: 'Accept' } });
      expect(error?.detail).toContain('1, 2');
    });
  });

  describe('when the path names the version', () => {
    it('serves the path version', async () => {
      expect(versionOf(await get('/v2/books/1'))).toBe(2);
      expect(versionOf(await get('/v1/books/1'))).toBe(1);
    });

    it('answers 400 when Accept names another version, with Vary: Accept', async () => {
      const response = await get('/v1/books/1', `${JSON_API};version=2`);
      expect(response.status).toBe(400);
      expect(response.headers.vary).toBe('Accept');
      expect(response.json).toMatchObject({ errors: [{ code: 'version-conflict' }] });
    });

    it('answers 404 for a path version that is mounted but not supported', async () => {
      const app = createApp();
      app.route({
        method: 'GET',
        path: '/v3/books',
        use: [versioning(options)],
        handler: () => json(200, {}),
      });
      const response = await app.handle(requestView('GET', '/v3/books'));
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ errors: [{ code: 'unknown-version' }] });
    });
  });

  describe('when the response is not a plain 200', () => {
    it('adds Vary: Accept to a 304', async () => {
      const response = await get('/cached', `${JSON_API};version=2`);
      expect(response.status).toBe(304);
      expect(response.headers.vary).toBe('Accept');
    });

    it('adds Vary: Accept to an error from the handler, without labelling its Content-Type', async () => {
      const response = await get('/missing', `${JSON_API};version=2`);
      expect(response.status).toBe(404);
      expect(response.headers.vary).toBe('Accept');
      expect(response.headers['content-type']).toBe(JSON_API);
    });

    it('keeps tokens already in Vary', async () => {
      const app = createApp();
      const varyOrigin: Middleware = async (_ctx, next) => {
        const response = await next();
        response.headers.vary = 'Origin';
        return response;
      };
      app.route({
        method: 'GET',
        path: '/x',
        use: [versioning(options), varyOrigin],
        handler: () => json(200, {}),
      });
      const response = await app.handle(requestView('GET', '/x'));
      expect(response.headers.vary).toBe('Origin, Accept');
    });
  });

  describe('when it is configured', () => {
    it.each([
      ['an empty supported list', { supported: [], default: 1 }, /non-empty/],
      ['a non-integer version', { supported: [1.5], default: 1.5 }, /positive integers/],
      ['a repeated version', { supported: [1, 1], default: 1 }, /twice/],
      ['a default that is not supported', { supported: [1, 2], default: 3 }, /"default"/],
      ['an unknown conflict rule', { supported: [1], default: 1, onConflict: 'newest' }, /"onConflict"/],
      ['a non-4xx unsupported status', { supported: [1], default: 1, unsupportedStatus: 500 }, /4xx/],
      [
        'a wildcard media type',
        { supported: [1], default: 1, mediaTypes: ['application/*'] },
        /"mediaTypes"/,
      ],
      ['an unsupported fixed path version', { supported: [1], default: 1, pathVersion: 2 }, /"pathVersion"/],
    ])('throws a TypeError at build time for %s', (_, bad, message) => {
      expect(() => versioning(bad as never)).toThrow(TypeError);
      expect(() => versioning(bad as never)).toThrow(message);
    });
  });
});

describe('versionedRoutes', () => {
  const mount = (unversioned: boolean) => {
    const app = createApp();
    const routes = versionedRoutes({
      method: 'GET',
      path: '/v{version}/users/{id}',
      unversioned,
      versioning: options,
      handler: (ctx) => json(200, { data: null, meta: { id: ctx.params.id, version: ctx.var.apiVersion } }),
    });
    for (const route of routes) app.route(route);
    return { app, routes };
  };

  it('mounts one handler on each path version and, when asked, on the unversioned path', async () => {
    const { app, routes } = mount(true);
    expect(routes.map((r) => r.path)).toEqual(['/v1/users/{id}', '/v2/users/{id}', '/users/{id}']);
    const v1 = await app.handle(requestView('GET', '/v1/users/9'));
    const v2 = await app.handle(requestView('GET', '/v2/users/9'));
    const plain = await app.handle(
      requestView('GET', '/users/9', { headers: { accept: `${JSON_API};version=2` } }),
    );
    expect([v1.json, v2.json, plain.json]).toEqual([
      { data: null, meta: { id: '9', version: 1 } },
      { data: null, meta: { id: '9', version: 2 } },
      { data: null, meta: { id: '9', version: 2 } },
    ]);
    expect((await app.handle(requestView('GET', '/users/9'))).json).toMatchObject({ meta: { version: 1 } });
  });

  it('leaves other versions to the router (404)', async () => {
    const { app } = mount(false);
    expect((await app.handle(requestView('GET', '/v3/users/9'))).status).toBe(404);
    expect((await app.handle(requestView('GET', '/users/9'))).status).toBe(404);
  });

  it('handles a version segment in the middle and a trailing slash', () => {
    const routes = versionedRoutes({
      method: 'GET',
      path: '/api/v{version}/standards/',
      versioning: { supported: [1], default: 1 },
      unversioned: true,
      handler: () => json(200, {}),
    });
    expect(routes.map((r) => r.path)).toEqual(['/api/v1/standards/', '/api/standards/']);
  });

  it('declares auth, responses and deprecation on every route it mounts', async () => {
    const routes = versionedRoutes({
      method: 'GET',
      path: '/v{version}/users/{id}',
      versioning: { supported: [1, 2], default: 1 },
      unversioned: true,
      auth: 'principal',
      responses: { 200: { description: 'A user', body: 'resource' } },
      deprecated: { since: '2025-01-01', successor: '/v2/users/{id}' },
      handler: () => json(200, {}),
    });
    const app = createApp();
    for (const route of routes) app.route(route);
    const listed = app.routes();
    expect(listed.map((r) => r.pattern)).toEqual(['/v1/users/{id}', '/v2/users/{id}', '/users/{id}']);
    for (const info of listed) {
      expect(info.auth).toBe('principal');
      expect(info.responses[200]?.description).toBe('A user');
      expect(info.deprecated).toEqual({ since: '2025-01-01', successor: '/v2/users/{id}' });
    }
    // The declared auth runs: no principal, 401; the declared deprecation is announced on it.
    const refused = await app.handle(requestView('GET', '/v2/users/9'));
    expect(refused.status).toBe(401);
    expect(refused.headers.deprecation).toBe('@1735689600');
    expect(refused.headers.link).toBe('</v2/users/9>; rel="successor-version"');
  });

  it.each([
    ['no version segment', { path: '/users/{id}' }, /exactly one "v\{version\}"/],
    ['two version segments', { path: '/v{version}/x/v{version}' }, /exactly one/],
    ['an unsupported path version', { path: '/v{version}/x', pathVersions: [3] }, /path version 3/],
  ])('throws a TypeError at build time for %s', (_, bad, message) => {
    const build = () =>
      versionedRoutes({ method: 'GET', versioning: options, handler: () => json(200, {}), ...bad });
    expect(build).toThrow(TypeError);
    expect(build).toThrow(message);
  });
});
