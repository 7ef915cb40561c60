import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json, noContent } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { Middleware } from '../../src/http/types.js';
import {
  DEFAULT_SECURITY_HEADERS,
  resolveSecurityHeaders,
  type SecurityHeaderName,
  type SecurityHeadersOptions,
  SOFTWARE_HEADERS,
} from '../../src/security/headers.js';
import { securityHeaders } from '../../src/security/middleware.js';
import { recordingLogger, send } from '../core/send.js';
import { nodeClient } from '../support/clients.js';

const EXPECTED = {
  'x-xss-protection': '0',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/** A middleware answering 304 for `If-None-Match: "v1"`, as a conditional-request layer would. */
const notModified: Middleware = async (ctx, next) =>
  ctx.request.headers.get('if-none-match') === '"v1"' ? { status: 304, headers: { etag: '"v1"' } } : next();

function app(options?: SecurityHeadersOptions) {
  return createApp({ use: [securityHeaders(options), notModified], logger: recordingLogger() })
    .route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }, { etag: '"v1"' }) })
    .route({
      method: 'GET',
      path: '/authors',
      handler: () => ({ status: 308, headers: { location: '/writers' } }),
    })
    .route({
      method: 'GET',
      path: '/orders',
      handler: () => {
        throw new Error('boom');
      },
    })
    .route({
      method: 'GET',
      path: '/reviews',
      handler: () => {
        throw new ApiError(422, { detail: 'Nope.' });
      },
    })
    .route({
      method: 'GET',
      path: '/users',
      handler: () =>
        noContent({ server: 'nginx/1.25', 'x-powered-by': 'Express', 'x-frame-options': 'SAMEORIGIN' }),
    });
}

const CASES = [
  ['a success', 'GET', '/books', {}, 200],
  ['a 304 from a middleware', 'GET', '/books', { 'if-none-match': '"v1"' }, 304],
  ['a 308 redirect', 'GET', '/authors', {}, 308],
  ['a server error', 'GET', '/orders', {}, 500],
  ['a client error', 'GET', '/reviews', {}, 422],
  ['a 404', 'GET', '/nothing', {}, 404],
  ['a 405', 'DELETE', '/books', {}, 405],
  ['a 406', 'GET', '/books', { accept: 'text/html' }, 406],
  ['an OPTIONS answer', 'OPTIONS', '/books', {}, 204],
  ['a HEAD answer', 'HEAD', '/books', {}, 200],
] as const;

describe('security headers', () => {
  describe.each(CASES)('on %s', (_name, method, path, headers, status) => {
    it('sends every default header', async () => {
      const res = await send(app(), method, path, { headers });
      expect(res.status).toBe(status);
      expect(res.headers).toMatchObject(EXPECTED);
    });
  });

  it('exports the defaults as data', () => {
    expect(DEFAULT_SECURITY_HEADERS).toEqual(EXPECTED);
    expect(Object.isFrozen(DEFAULT_SECURITY_HEADERS)).toBe(true);
  });

  describe('when a handler names the server software', () => {
    it('removes Server and X-Powered-By', async () => {
      const res = await send(app(), 'GET', '/users');
      expect(res.headers.server).toBeUndefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it.each(SOFTWARE_HEADERS)('removes %s when it is the only one set', async (name) => {
      const only = createApp({ use: [securityHeaders()] }).route({
        method: 'GET',
        path: '/users',
        handler: () => noContent({ [name]: 'nginx/1.25' }),
      });
      const res = await send(only, 'GET', '/users');
      expect(res.status).toBe(204);
      expect(res.headers[name]).toBeUndefined();
    });

    it('keeps a security header the handler set explicitly', async () => {
      expect((await send(app(), 'GET', '/users')).headers['x-frame-options']).toBe('SAMEORIGIN');
    });
  });

  describe('over a real socket', () => {
    it('sends the headers and nothing naming the software', async () => {
      const client = await nodeClient(app());
      try {
        for (const [, method, path, headers] of CASES) {
          const res = await client.request(method, path, { headers });
          expect(res.headers).toMatchObject(EXPECTED);
          expect(res.headers.server).toBeUndefined();
          expect(res.headers['x-powered-by']).toBeUndefined();
        }
      } finally {
        await client.close();
      }
    });
  });

  describe('when configured', () => {
    it('replaces a value', async () => {
      const res = await send(app({ 'content-security-policy': "default-src 'self'" }), 'GET', '/books');
      expect(res.headers['content-security-policy']).toBe("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    });

    it('leaves out a disabled header', async () => {
      const res = await send(app({ 'strict-transport-security': false }), 'GET', '/nothing');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('builds exactly the configured set for any combination of options (property)', () => {
      const names = Object.keys(DEFAULT_SECURITY_HEADERS) as SecurityHeaderName[];
      const choice = fc.oneof(
        fc.constant(undefined),
        fc.constant(false as const),
        fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,30}$/),
      );
      fc.assert(
        fc.property(fc.tuple(...names.map(() => choice)), (choices) => {
          const options: Record<string, string | false> = {};
          names.forEach((n, i) => {
            if (choices[i] !== undefined) options[n] = choices[i]!;
          });
          const resolved = new Map(resolveSecurityHeaders(options));
          names.forEach((n, i) => {
            const c = choices[i];
            if (c === false) expect(resolved.has(n)).toBe(false);
            else expect(resolved.get(n)).toBe(c ?? DEFAULT_SECURITY_HEADERS[n]);
          });
        }),
      );
    });
  });

  describe('when a configured value is unsafe', () => {
    it.each([
      ['a CRLF injection', 'DENY\r\nSet-Cookie: session=1'],
      ['a bare LF', 'DENY\nX: y'],
      ['a NUL', 'DENY\0'],
      ['non-ASCII', 'DÉNY'],
      ['an empty value', ''],
    ])('refuses %s at start-up', (_case, value) => {
      expect(() => securityHeaders({ 'x-frame-options': value })).toThrow(TypeError);
    });

    it('refuses a value that is not a string or false', () => {
      expect(() => securityHeaders({ 'x-frame-options': true as never })).toThrow(TypeError);
    });

    it.each(['server', 'toString', '__proto__'])('refuses an unknown header name (%s)', (name) => {
      expect(() => securityHeaders(JSON.parse(`{"${name}": "x"}`))).toThrow(/unknown header/);
    });
  });
});
