import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { readBody } from '../../src/core/body.js';
import { json } from '../../src/core/response.js';
import { type MovedUrl, movedUrls, movedUrlTable } from '../../src/deprecation/moved-urls.js';
import type { Context } from '../../src/http/types.js';
import { requestView } from '../support/request.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const TABLE: readonly MovedUrl[] = [
  { from: '/users/{id}/accountType', to: '/users/{id}/account-type' },
  { from: '/Users/{id}/Orders/{orderId}', to: '/users/{id}/orders/{orderId}', status: 301 },
  { from: '/legacy/{b}/{a}', to: '/things/{a}/parts/{b}/' },
  { from: '/old-books', to: '/books' },
];

/** Echoes what reached the new URL: method, path, query and body. */
async function echo(ctx: Context) {
  const body = Buffer.from(await readBody(ctx)).toString('utf8');
  return json(200, {
    meta: { method: ctx.request.method, path: ctx.request.path, search: ctx.request.search, body },
  });
}

function movedApp() {
  const app = createApp({ use: [movedUrls({ table: TABLE })] });
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    app.route({ method, path: '/users/{id}/account-type', handler: echo });
  }
  return app;
}

describe('movedUrls', () => {
  describe('when a request hits an old URL', () => {
    const app = movedApp();

    it('answers 308 with the new URL, params and query carried over, and no body', async () => {
      const response = await app.handle(requestView('POST', '/users/42/accountType?expand=owner&x=%20y'));
      expect(response.status).toBe(308);
      expect(response.headers.location).toBe('/users/42/account-type?expand=owner&x=%20y');
      expect(response.json).toBeUndefined();
    });

    it('serves the new URL itself normally', async () => {
      expect((await app.handle(requestView('GET', '/users/42/account-type'))).status).toBe(200);
    });

    it('matches the old URL with a trailing slash, but only with its exact case', async () => {
      expect((await app.handle(requestView('GET', '/users/42/accountType/'))).headers.location).toBe(
        '/users/42/account-type',
      );
      expect((await app.handle(requestView('GET', '/users/42/accounttype'))).status).toBe(404);
    });

    it('answers 301 to GET and HEAD of a 301 entry, and 308 to other methods (which must keep their body)', async () => {
      const statusFor = async (method: string) =>
        (await app.handle(requestView(method, '/Users/1/Orders/2'))).status;
      expect(await statusFor('GET')).toBe(301);
      expect(await statusFor('HEAD')).toBe(301);
      expect(await statusFor('POST')).toBe(308);
      expect(await statusFor('DELETE')).toBe(308);
    });

    it('percent-encodes what cannot appear in a Location field', () => {
      const table = movedUrlTable(TABLE);
      expect(table.redirect('GET', '/users/a"b/accountType', 'q=a b&r=é')?.location).toBe(
        '/users/a%22b/account-type?q=a%20b&r=%C3%A9',
      );
      expect(table.redirect('GET', '/users/100%/accountType', '')?.location).toBe(
        '/users/100%25/account-type',
      );
    });

    test.prop([
      fc.constantFrom(...TABLE),
      fc.constantFrom(...METHODS),
      fc.dictionary(fc.constantFrom('id', 'orderId', 'a', 'b'), fc.string({ minLength: 1, maxLength: 12 })),
      fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })), { maxLength: 3 }),
    ])(
      'every entry redirects every method with params and query intact',
      async (entry, method, values, pairs) => {
        const fill = (pattern: string) =>
          pattern.replace(/\{(\w+)\}/g, (_, name: string) =>
            encodeURIComponent(values[name] ?? `${name}-value`),
          );
        const query = new URLSearchParams(pairs).toString();
        const suffix = query === '' ? '' : `?${query}`;
        const response = await app.handle(requestView(method, `${fill(entry.from)}${suffix}`));
        const expectedStatus = entry.status === 301 && (method === 'GET' || method === 'HEAD') ? 301 : 308;
        expect(response.status).toBe(expectedStatus);
        expect(response.headers.location).toBe(`${fill(entry.to)}${suffix}`);
      },
    );
  });

  describe('when a client follows the redirect over a real socket', () => {
    let server: http.Server;
    let base: string;

    beforeAll(async () => {
      server = http.createServer(toNodeHandler(movedApp()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
      'undici keeps the method and the body of a %s through a 308',
      async (method) => {
        const response = await fetch(`${base}/users/7/accountType?keep=1`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: '{"accountType":"premium"}',
        });
        expect(response.status).toBe(200);
        expect(response.redirected).toBe(true);
        expect(response.url).toBe(`${base}/users/7/account-type?keep=1`);
        const { meta } = (await response.json()) as { meta: Record<string, string> };
        expect(meta).toEqual({
          method,
          path: '/users/7/account-type',
          search: 'keep=1',
          body: '{"accountType":"premium"}',
        });
      },
    );
  });

  describe('when the table is built', () => {
    it.each([
      ['an empty table', [], /non-empty/],
      ['a relative pattern', [{ from: 'users/{id}', to: '/users/{id}' }], /starting with "\/"/],
      ['a query in a pattern', [{ from: '/users?id=1', to: '/users' }], /no query/],
      ['a half parameter', [{ from: '/users/id{id}', to: '/users/{id}' }], /malformed segment/],
      [
        'different parameters',
        [{ from: '/users/{id}/accountType', to: '/users/{uid}/account-type' }],
        /same parameters/,
      ],
      ['a missing parameter', [{ from: '/users/{id}/{x}', to: '/users/{id}' }], /same parameters/],
      ['a status other than 301 or 308', [{ from: '/a', to: '/b', status: 302 }], /301 or 308/],
      ['a redirect to itself', [{ from: '/a/{x}', to: '/a/{x}' }], /chain or loop/],
      [
        'a chain',
        [
          { from: '/a', to: '/b' },
          { from: '/b', to: '/c' },
        ],
        /chain or loop/,
      ],
      [
        'two entries for one old URL',
        [
          { from: '/a/{x}', to: '/b/{x}' },
          { from: '/a/{y}', to: '/c/{y}' },
        ],
        /both move/,
      ],
    ])('throws a TypeError for %s', (_, table, message) => {
      expect(() => movedUrls({ table: table as never })).toThrow(TypeError);
      expect(() => movedUrls({ table: table as never })).toThrow(message);
    });
  });
});
