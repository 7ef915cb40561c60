import fc from 'fast-check';
import CachePolicy from 'http-cache-semantics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSecurityHeaders } from '../support/assertions.js';
import type { TestClient } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceAppOn } from '../support/reference-app.js';

describe.each(APP_MATRIX)(
  'caching in the reference app through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let client: TestClient;
    let owner: string;
    let other: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      owner = await bearer('1');
      other = await bearer('2');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    const placeOrder = async (quantity = 2) => {
      const response = await client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json', authorization: owner },
        body: JSON.stringify({ bookId: 1, quantity }),
      });
      expect(response.status).toBe(201);
      return response.headers.location!;
    };
    const patch = (path: string, quantity: number, headers: Record<string, string> = {}) =>
      client.request('PATCH', path, {
        headers: { 'content-type': 'application/json', authorization: owner, ...headers },
        body: JSON.stringify({ quantity }),
      });

    describe('books', () => {
      it.each(['/books', '/books?author=Italo%20Calvino', '/books/5'])(
        'GET %s is public for a minute with ETag and Last-Modified',
        async (path) => {
          const response = await client.request('GET', path);
          expect(response.headers['cache-control']).toBe('public, max-age=60');
          expect(response.headers.etag).toMatch(/^"[^"]+"$/);
          expect(new Date(response.headers['last-modified']!).toUTCString()).toBe(
            response.headers['last-modified'],
          );
          expect(response.headers.vary).toMatch(/accept/i);
        },
      );

      it.each(['/books', '/books/5'])(
        'GET %s answers 304 to a matching If-None-Match, keeping the headers',
        async (path) => {
          const first = await client.request('GET', path);
          const revalidated = await client.request('GET', path, {
            headers: { 'if-none-match': first.headers.etag! },
          });
          expect(revalidated.status).toBe(304);
          expect(revalidated.text).toBe('');
          expect(revalidated.headers.etag).toBe(first.headers.etag);
          expect(revalidated.headers['cache-control']).toBe('public, max-age=60');
          expect(revalidated.headers.date).toBeDefined();
          expect(revalidated.headers['last-modified']).toBe(first.headers['last-modified']);
          expectSecurityHeaders(revalidated);
        },
      );

      it('answers 304 to a not-newer If-Modified-Since and 200 to an older one', async () => {
        const first = await client.request('GET', '/books/5');
        const same = await client.request('GET', '/books/5', {
          headers: { 'if-modified-since': first.headers['last-modified']! },
        });
        expect(same.status).toBe(304);
        const older = new Date(Date.parse(first.headers['last-modified']!) - 1000).toUTCString();
        expect(
          (await client.request('GET', '/books/5', { headers: { 'if-modified-since': older } })).status,
        ).toBe(200);
      });

      it('gives HEAD the same caching headers as GET', async () => {
        const get = await client.request('GET', '/books/5');
        const head = await client.request('HEAD', '/books/5');
        for (const name of ['etag', 'last-modified', 'cache-control', 'vary', 'content-length']) {
          expect(head.headers[name], name).toBe(get.headers[name]);
        }
      });

      it('is revalidated by an independent HTTP cache: a fresh hit, then a 304 once stale', async () => {
        const request = { url: '/books/5', method: 'GET', headers: {} };
        const first = await client.request('GET', '/books/5');
        const policy = new CachePolicy(request, { status: first.status, headers: first.headers });
        expect(policy.storable()).toBe(true);
        expect(policy.satisfiesWithoutRevalidation(request)).toBe(true);
        const revalidation = policy.revalidationHeaders(request) as Record<string, string>;
        const second = await client.request('GET', '/books/5', { headers: revalidation });
        expect(second.status).toBe(304);
        const { modified } = policy.revalidatedPolicy(request, {
          status: second.status,
          headers: second.headers,
        });
        expect(modified).toBe(false);
      });
    });

    describe('orders', () => {
      it('GET /orders/{id} is private, revalidated every time, with an ETag', async () => {
        const path = await placeOrder();
        const response = await client.request('GET', path, { headers: { authorization: owner } });
        expect(response.headers['cache-control']).toBe('private, no-cache');
        expect(response.headers.etag).toMatch(/^"[^"]+"$/);
        expect(response.headers.vary).toMatch(/authorization/i);
        const again = await client.request('GET', path, {
          headers: { authorization: owner, 'if-none-match': response.headers.etag! },
        });
        expect(again.status).toBe(304);
      });

      it('never answers 304, 412 or 428 about another user\u2019s order: the same 404 as for an absent one', async () => {
        const path = await placeOrder();
        const mine = await client.request('GET', path, { headers: { authorization: owner } });
        const theirs = await client.request('GET', path, {
          headers: { authorization: other, 'if-none-match': mine.headers.etag! },
        });
        expect(theirs.status).toBe(404);
        for (const extra of [{}, { 'if-match': mine.headers.etag! }] as Record<string, string>[]) {
          const write = await client.request('PATCH', path, {
            headers: { 'content-type': 'application/json', authorization: other, ...extra },
            body: '{"quantity":9}',
          });
          expect(write.status).toBe(404);
          expect(write.body.errors[0].code).toBe('not-found');
        }
        const unchanged = await client.request('GET', path, { headers: { authorization: owner } });
        expect(unchanged.body.data.attributes.quantity).toBe(2);
      });

      it('PATCH needs If-Match: 428 without, 412 when stale, 200 with the new ETag when current', async () => {
        const path = await placeOrder();
        const missing = await patch(path, 5);
        expect(missing.status).toBe(428);
        expect(missing.body.errors[0].status).toBe('428');
        const read = await client.request('GET', path, { headers: { authorization: owner } });
        const changed = await patch(path, 5, { 'if-match': read.headers.etag! });
        expect(changed.status).toBe(200);
        expect(changed.body.data.attributes.quantity).toBe(5);
        expect(changed.headers.etag).not.toBe(read.headers.etag);
        const stale = await patch(path, 7, { 'if-match': read.headers.etag! });
        expect(stale.status).toBe(412);
        const after = await client.request('GET', path, { headers: { authorization: owner } });
        expect(after.body.data.attributes.quantity).toBe(5);
        expect(after.headers.etag).toBe(changed.headers.etag);
      });

      it('leaves the same state when the same PATCH is sent twice', async () => {
        const path = await placeOrder();
        const read = await client.request('GET', path, { headers: { authorization: owner } });
        const first = await patch(path, 9, { 'if-match': read.headers.etag! });
        const second = await patch(path, 9, { 'if-match': first.headers.etag! });
        expect([first.status, second.status]).toEqual([200, 200]);
        expect(second.headers.etag).toBe(first.headers.etag);
        expect(second.body).toEqual(first.body);
      });

      it('lets exactly one of two concurrent writers with the same ETag win; the other gets 412', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 100 }),
            fc.integer({ min: 1, max: 100 }),
            async (a, b) => {
              fc.pre(a !== b && a !== 2 && b !== 2);
              const path = await placeOrder();
              const { etag } = (await client.request('GET', path, { headers: { authorization: owner } }))
                .headers;
              const results = await Promise.all([
                patch(path, a, { 'if-match': etag! }),
                patch(path, b, { 'if-match': etag! }),
              ]);
              expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
              const winner = results.find((r) => r.status === 200)!;
              const final = await client.request('GET', path, { headers: { authorization: owner } });
              expect(final.body.data.attributes.quantity).toBe(winner.body.data.attributes.quantity);
            },
          ),
          { numRuns: 25 },
        );
      });

      it('changes the ETag exactly when the representation changes', async () => {
        const path = await placeOrder();
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (quantity) => {
            const before = await client.request('GET', path, { headers: { authorization: owner } });
            const written = await patch(path, quantity, { 'if-match': before.headers.etag! });
            expect(written.status).toBe(200);
            const after = await client.request('GET', path, { headers: { authorization: owner } });
            expect(after.headers.etag === before.headers.etag).toBe(after.text === before.text);
          }),
          { numRuns: 30 },
        );
      });
    });

    describe('every response', () => {
      it('says whether it may be cached; errors are no-store', async () => {
        const path = await placeOrder();
        const responses = await Promise.all([
          client.request('GET', '/books'),
          client.request('GET', '/books/999'),
          client.request('GET', '/nowhere'),
          client.request('OPTIONS', '/books'),
          client.request('DELETE', '/books/1'),
          client.request('GET', path, { headers: { authorization: owner } }),
          client.request('DELETE', path, { headers: { authorization: owner } }),
          client.request('GET', '/api/v1/standards/'),
        ]);
        for (const response of responses) {
          expect(response.headers['cache-control'], `${response.status}`).toBeDefined();
          if (response.status >= 400) expect(response.headers['cache-control']).toBe('no-store');
        }
      });
    });
  },
);
