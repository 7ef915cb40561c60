import { parseItem } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOVED_URLS } from '../../examples/reference-app/composition-root.js';
import type { TestClient } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceApp, referenceAppOn } from '../support/reference-app.js';

const JSON_API = 'application/vnd.api+json';

describe.each(APP_MATRIX)(
  'versions, deprecation and moved URLs through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let client: TestClient;
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let ada: string;
    let reader: string;
    let writer: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      ada = await bearer('1');
      reader = await bearer('1', 'standards:read');
      writer = await bearer('1', 'standards:read standards:write');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    const getUser = (path: string, accept?: string) =>
      client.request('GET', path, { headers: { authorization: ada, ...(accept ? { accept } : {}) } });

    describe('users v1 and v2, served by one handler', () => {
      it('/v2/users/{id} has givenName and familyName and is not deprecated', async () => {
        const response = await getUser('/v2/users/1');
        expect(response.status).toBe(200);
        expect(response.body.data.attributes).toEqual({
          givenName: 'Ada',
          familyName: 'Lovelace',
          email: 'ada@example.com',
        });
        expect(response.headers.deprecation).toBeUndefined();
      });

      it('/v1/users/{id} has the joined name and says it is deprecated, with a sunset and links', async () => {
        const response = await getUser('/v1/users/1');
        expect(response.status).toBe(200);
        expect(response.body.data.attributes).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
        const [deprecated] = parseItem(response.headers.deprecation!);
        expect(deprecated).toBeInstanceOf(Date);
        expect((deprecated as Date).toISOString()).toBe('2026-06-01T00:00:00.000Z');
        expect(response.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
        expect(response.headers.link).toContain('rel="deprecation"');
        expect(response.headers.link).toContain('</v2/users/1>; rel="successor-version"');
      });

      it('the unversioned /users/{id} is version 1 by default, and version 2 when Accept asks', async () => {
        const plain = await getUser('/users/1');
        expect(plain.body.data.attributes.name).toBe('Ada Lovelace');
        const v2 = await getUser('/users/1', `${JSON_API};version=2`);
        expect(v2.status).toBe(200);
        expect(v2.body.data.attributes.givenName).toBe('Ada');
        expect(v2.headers['content-type']).toBe(`${JSON_API};version=2`);
        expect(v2.headers.vary).toMatch(/accept/i);
        const json = await getUser('/users/1', 'application/json; version=2');
        expect(json.headers['content-type']).toBe('application/json;version=2');
      });

      it('gives v1 and v2 of one URL different ETags', async () => {
        const v1 = await getUser('/users/1', `${JSON_API};version=1`);
        const v2 = await getUser('/users/1', `${JSON_API};version=2`);
        expect(v1.headers.etag).toBeDefined();
        expect(v1.headers.etag).not.toBe(v2.headers.etag);
        const revalidated = await client.request('GET', '/users/1', {
          headers: { authorization: ada, accept: `${JSON_API};version=2`, 'if-none-match': v2.headers.etag! },
        });
        expect(revalidated.status).toBe(304);
        expect(revalidated.headers.vary).toMatch(/accept/i);
      });

      it.each([
        ['/v2/users/1', undefined, '/v2/users/1'],
        ['/v1/users/1', undefined, '/v1/users/1'],
        ['/users/1', `${JSON_API};version=2`, '/users/1'],
        ['/users/1', undefined, '/users/1'],
      ])('%s (Accept %s) links back to %s, the version it was asked by', async (path, accept, self) => {
        const response = await getUser(path, accept);
        expect(response.status).toBe(200);
        expect(response.body.links.self).toBe(self);
        expect(response.body.data.links.self).toBe(self);
        // Links to resources that exist only unversioned stay unversioned.
        expect(response.body.data.relationships.orders.links.related).toBe('/users/1/orders');
        const followed = await getUser(self, accept);
        expect(followed.body.data.attributes).toEqual(response.body.data.attributes);
      });

      it('gives each version of the user its own ETag, by path and by Accept', async () => {
        const tags = await Promise.all([
          getUser('/v1/users/1'),
          getUser('/v2/users/1'),
          getUser('/users/1', `${JSON_API};version=1`),
          getUser('/users/1', `${JSON_API};version=2`),
        ]).then((responses) => responses.map((r) => r.headers.etag));
        expect(tags.every((tag) => tag !== undefined)).toBe(true);
        expect(tags[0]).not.toBe(tags[1]);
        expect(tags[2]).not.toBe(tags[3]);
      });

      it('refuses a path and an Accept version that disagree (400), an unsupported Accept version (406) and path version (404)', async () => {
        const conflict = await getUser('/v1/users/1', `${JSON_API};version=2`);
        expect(conflict.status).toBe(400);
        expect(conflict.headers.vary).toMatch(/accept/i);
        const unsupported = await getUser('/users/1', `${JSON_API};version=9`);
        expect(unsupported.status).toBe(406);
        expect(unsupported.body.errors[0].detail).toMatch(/1.*2/);
        expect((await getUser('/v9/users/1')).status).toBe(404);
      });
    });

    describe('moved URLs', () => {
      it.each(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
        'redirects every entry of the moved table for %s with params and query intact',
        async (method) => {
          for (const { from, to } of MOVED_URLS) {
            const id = `u-${method.toLowerCase()}`;
            const response = await client.request(method, `${from.replace('{id}', id)}?page=2&q=a%20b`, {
              ...(method === 'GET' || method === 'HEAD'
                ? {}
                : { headers: { 'content-type': 'application/json' }, body: '{}' }),
            });
            expect(response.status).toBe(308);
            expect(response.headers.location).toBe(`${to.replace('{id}', id)}?page=2&q=a%20b`);
          }
        },
      );

      it('redirects /users/{id}/accountType to /users/{id}/account-type with 308, query kept', async () => {
        const response = await client.request('GET', '/users/1/accountType?x=1');
        expect(response.status).toBe(308);
        expect(response.headers.location).toBe('/users/1/account-type?x=1');
        expect(response.headers['x-frame-options']).toBe('DENY');
        // The redirect is rate limited like every route: with RateLimit headers.
        expect(response.headers['ratelimit-policy']).toMatch(/^"default";q=\d+;w=\d+$/);
        expect(response.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
        const followed = await getUser('/users/1/account-type');
        expect(followed.body.data).toMatchObject({ type: 'account-types', id: 'premium' });
      });
    });

    describe('moved URLs under a small quota', () => {
      let limited: TestClient;
      beforeAll(async () => {
        limited = await connect(referenceApp({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '3600' }).app);
      });
      afterAll(() => limited.close());

      it('counts each 308 against the quota: the third request is refused with 429', async () => {
        const statuses = [];
        for (let i = 0; i < 3; i++)
          statuses.push((await limited.request('GET', '/users/1/accountType')).status);
        expect(statuses).toEqual([308, 308, 429]);
      });
    });

    describe('standards under /api/v1/', () => {
      it('accepts Accept version 1 and says so in Content-Type; refuses version 2 with 400', async () => {
        const ok = await client.request('GET', '/api/v1/standards/', {
          headers: { authorization: reader, accept: `${JSON_API};version=1` },
        });
        expect(ok.status).toBe(200);
        expect(ok.headers['content-type']).toBe(`${JSON_API};version=1`);
        const conflict = await client.request('GET', '/api/v1/standards/', {
          headers: { authorization: reader, accept: `${JSON_API};version=2` },
        });
        expect(conflict.status).toBe(400);
      });

      it('needs an Idempotency-Key to create, and replays a retry byte for byte', async () => {
        const body = JSON.stringify({ code: `IDEM-${client.adapter.toUpperCase()}`, name: 'Replayed' });
        const headers = { authorization: writer, 'content-type': 'application/json' };
        const missing = await client.request('POST', '/api/v1/standards/', { headers, body });
        expect(missing.status).toBe(400);
        expect(missing.body.errors[0].source).toEqual({ header: 'Idempotency-Key' });
        const keyed = { ...headers, 'idempotency-key': `"std-${client.adapter}"` };
        const first = await client.request('POST', '/api/v1/standards/', { headers: keyed, body });
        const retry = await client.request('POST', '/api/v1/standards/', { headers: keyed, body });
        expect(first.status).toBe(201);
        expect(retry.status).toBe(201);
        expect(retry.text).toBe(first.text);
        expect(retry.headers.location).toBe(first.headers.location);
        expect(retry.headers['idempotent-replayed']).toBe('true');
      });
    });
  },
);
