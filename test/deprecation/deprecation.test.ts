import LinkHeader from 'http-link-header';
import { parseItem } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { deprecation } from '../../src/deprecation/middleware.js';
import { deprecationNotice } from '../../src/deprecation/notice.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { Handler, Middleware } from '../../src/http/types.js';
import { versioning } from '../../src/versioning/middleware.js';
import { versionedRoutes } from '../../src/versioning/routes.js';
import { requestView } from '../support/request.js';

const SINCE = new Date('2025-01-01T00:00:00Z');
const SUNSET = new Date('2026-06-30T12:00:00Z');
const DOCS = 'https://docs.example.com/deprecations/v1';
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const quiet = { error: () => {}, warn: () => {} };

function appWith(use: Middleware[], handler: Handler = () => json(200, { data: null })) {
  const app = createApp({ logger: quiet });
  app.route({ method: 'GET', path: '/v1/users/{id}', use, handler });
  return app;
}

describe('deprecation middleware', () => {
  describe('when a route is deprecated with a sunset, docs and a successor', () => {
    const app = appWith([
      deprecation({ since: SINCE, sunset: SUNSET, link: DOCS, successor: '/v2/users/{id}', now: () => 0 }),
    ]);

    it('answers normally', async () => {
      const response = await app.handle(requestView('GET', '/v1/users/42'));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ data: null });
    });

    it('sends Deprecation as an RFC 9651 date that parses back to the configured second', async () => {
      const { headers } = await app.handle(requestView('GET', '/v1/users/42'));
      const [value] = parseItem(headers.deprecation!);
      expect(value).toBeInstanceOf(Date);
      expect((value as Date).getTime()).toBe(SINCE.getTime());
      expect(headers.deprecation).toBe(`@${SINCE.getTime() / 1000}`);
    });

    it('sends Sunset as an IMF-fixdate of the sunset', async () => {
      const { headers } = await app.handle(requestView('GET', '/v1/users/42'));
      expect(headers.sunset).toMatch(IMF_FIXDATE);
      expect(Date.parse(headers.sunset!)).toBe(SUNSET.getTime());
    });

    it('links the docs (rel="deprecation") and the successor with the route params filled in', async () => {
      const { headers } = await app.handle(requestView('GET', '/v1/users/42'));
      const links = LinkHeader.parse(headers.link!);
      expect(links.rel('deprecation')).toEqual([{ uri: DOCS, rel: 'deprecation', type: 'text/html' }]);
      expect(links.rel('successor-version')).toEqual([{ uri: '/v2/users/42', rel: 'successor-version' }]);
    });

    it('adds its links to a Link header the response already has', async () => {
      const paged: Middleware = async (_ctx, next) => {
        const response = await next();
        response.headers.link = '</v1/users/43>; rel="next"';
        return response;
      };
      const withLink = appWith([
        deprecation({ since: SINCE, link: DOCS, successor: 'https://api.example.com/v2/users/{id}' }),
        paged,
      ]);
      const links = LinkHeader.parse(
        (await withLink.handle(requestView('GET', '/v1/users/a b'))).headers.link!,
      );
      expect(links.refs.map((ref) => ref.rel)).toEqual(['next', 'deprecation', 'successor-version']);
      expect(links.rel('successor-version')[0]?.uri).toBe('https://api.example.com/v2/users/a%20b');
    });

    it('decorates error responses too', async () => {
      const missing = () => {
        throw new ApiError(404, { detail: 'No such user.' });
      };
      const response = await appWith([deprecation({ since: SINCE })], missing).handle(
        requestView('GET', '/v1/users/1'),
      );
      expect(response.status).toBe(404);
      expect(response.headers.deprecation).toBe(`@${SINCE.getTime() / 1000}`);
    });
  });

  describe('when only the sunset passes', () => {
    const build = (goneAfterSunset: boolean, now: number) =>
      appWith([deprecation({ since: SINCE, sunset: SUNSET, link: DOCS, goneAfterSunset, now: () => now })]);

    it('keeps answering before the sunset', async () => {
      const response = await build(true, SUNSET.getTime() - 1).handle(requestView('GET', '/v1/users/1'));
      expect(response.status).toBe(200);
    });

    it('answers 410 Gone from the sunset on, with the deprecation headers, when configured', async () => {
      const response = await build(true, SUNSET.getTime()).handle(requestView('GET', '/v1/users/1'));
      expect(response.status).toBe(410);
      expect(response.json).toMatchObject({ errors: [{ status: '410', code: 'sunset' }] });
      expect(response.headers.sunset).toMatch(IMF_FIXDATE);
      expect(response.headers.deprecation).toBeDefined();
      expect(LinkHeader.parse(response.headers.link!).rel('deprecation')).toHaveLength(1);
    });

    it('keeps answering after the sunset unless goneAfterSunset is set', async () => {
      const response = await build(false, SUNSET.getTime() + 1e9).handle(requestView('GET', '/v1/users/1'));
      expect(response.status).toBe(200);
    });
  });

  describe('when only one API version is deprecated', () => {
    const app = createApp();
    const routes = versionedRoutes({
      method: 'GET',
      path: '/v{version}/users/{id}',
      unversioned: true,
      versioning: { supported: [1, 2], default: 1 },
      use: [deprecation({ since: SINCE, sunset: SUNSET, successor: '/v2/users/{id}', version: 1 })],
      handler: () => json(200, { data: null }),
    });
    for (const route of routes) app.route(route);

    it('marks version 1 by path, by Accept or by default, and not version 2', async () => {
      const v1 = await app.handle(requestView('GET', '/v1/users/1'));
      const byDefault = await app.handle(requestView('GET', '/users/1'));
      const byAccept = await app.handle(
        requestView('GET', '/users/1', { headers: { accept: 'application/vnd.api+json;version=1' } }),
      );
      const v2 = await app.handle(requestView('GET', '/v2/users/1'));
      expect([v1, byDefault, byAccept].map((r) => r.headers.deprecation)).toEqual(
        Array(3).fill('@1735689600'),
      );
      expect(v2.headers.deprecation).toBeUndefined();
      expect(v2.headers.link).toBeUndefined();
    });

    it('fails loudly when versioning does not run first', async () => {
      const misordered = appWith([
        deprecation({ since: SINCE, version: 1 }),
        versioning({ supported: [1], default: 1 }),
      ]);
      expect((await misordered.handle(requestView('GET', '/v1/users/1'))).status).toBe(500);
    });
  });

  describe('when it is configured', () => {
    it.each([
      ['an invalid Date', { since: new Date('nope') }, /"since" is an invalid Date/],
      ['a malformed date string', { since: '01/02/2025' }, /ISO 8601/],
      ['an impossible calendar date', { since: '2025-02-30' }, /ISO 8601/],
      ['a date-time without a zone', { since: '2025-01-01T10:00:00' }, /ISO 8601/],
      ['a sunset before the deprecation', { since: SUNSET, sunset: SINCE }, /"sunset" .* is before "since"/],
      ['a relative docs link', { since: SINCE, link: '/docs/v1' }, /"link" must be an absolute URL/],
      ['a quoted docs link', { since: SINCE, link: '"https://docs.example.com"' }, /without quotes/],
      [
        'a docs link in angle brackets',
        { since: SINCE, link: '<https://docs.example.com>' },
        /angle brackets/,
      ],
      ['a docs link that is not http', { since: SINCE, link: 'mailto:api@example.com' }, /http or https/],
      ['a relative successor', { since: SINCE, successor: 'v2/users/{id}' }, /"successor"/],
      ['goneAfterSunset without a sunset', { since: SINCE, goneAfterSunset: true }, /needs a "sunset"/],
      ['a version that is not a positive integer', { since: SINCE, version: 0 }, /"version"/],
      ['a clock that is not a function', { since: SINCE, now: 5 }, /"now"/],
    ])('throws a TypeError at build time for %s', (_, bad, message) => {
      expect(() => deprecation(bad as never)).toThrow(TypeError);
      expect(() => deprecation(bad as never)).toThrow(message);
    });

    it('accepts ISO 8601 strings and truncates to the second', () => {
      const notice = deprecationNotice({ since: '2025-01-01', sunset: '2026-06-30T12:00:00.999+02:00' });
      expect(notice.deprecation).toBe('@1735689600');
      expect(notice.sunset).toBe('Tue, 30 Jun 2026 10:00:00 GMT');
    });
  });
});
