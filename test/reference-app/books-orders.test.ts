import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BookStore, MemoryBookStore } from '../../examples/reference-app/books/book-store.js';
import { expectSecurityHeaders } from '../support/assertions.js';
import { fetchClient, type TestClient } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceApp, referenceAppOn } from '../support/reference-app.js';

const JSON_BODY = { 'content-type': 'application/json' };

describe.each(APP_MATRIX)(
  'the reference app through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let client: TestClient;
    let user1: string;
    let user2: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      user1 = await bearer('1');
      user2 = await bearer('2');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    const placeOrder = (token: string, body: unknown = { bookId: 1, quantity: 2 }) =>
      client.request('POST', '/orders', {
        headers: { ...JSON_BODY, authorization: token },
        body: JSON.stringify(body),
      });

    describe('GET /books', () => {
      it('lists every book as a books collection with links.self', async () => {
        const response = await client.request('GET', '/books');
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe('application/vnd.api+json');
        expect(response.body.data.length).toBeGreaterThanOrEqual(12);
        expect(
          new Set(response.body.data.map((b: { attributes: { author: string } }) => b.attributes.author))
            .size,
        ).toBeGreaterThanOrEqual(3);
        expect(response.body.links.self).toBe('/books');
        expectSecurityHeaders(response);
      });

      it('filters by author and keeps the query in links.self', async () => {
        const response = await client.request('GET', '/books?author=Octavia%20E.%20Butler');
        expect(response.status).toBe(200);
        expect(response.body.data).toHaveLength(4);
        for (const book of response.body.data) {
          expect(book.type).toBe('books');
          expect(book.attributes.author).toBe('Octavia E. Butler');
          expect(Object.keys(book.attributes).sort()).toEqual(['author', 'title']);
        }
        expect(response.body.links.self).toBe('/books?author=Octavia%20E.%20Butler');
      });

      it('answers an unknown author with an empty collection', async () => {
        const response = await client.request('GET', '/books?author=Nobody');
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual([]);
      });

      it('refuses an unknown query parameter naming it in source.parameter', async () => {
        const response = await client.request('GET', '/books?auther=x');
        expect(response.status).toBe(400);
        expect(response.body.errors[0].source).toEqual({ parameter: 'auther' });
      });

      it('serves the application/json media type when the client prefers it', async () => {
        const response = await client.request('GET', '/books/1', { headers: { accept: 'application/json' } });
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe('application/json');
      });

      it('answers 406 with an error document for a media type it does not offer', async () => {
        const response = await client.request('GET', '/books', { headers: { accept: 'text/html' } });
        expect(response.status).toBe(406);
        expect(response.body.errors[0]).toMatchObject({ status: '406', source: { header: 'Accept' } });
        expectSecurityHeaders(response);
      });
    });

    describe('GET /books/{id}', () => {
      it('returns one book with its self link and no internal fields', async () => {
        const response = await client.request('GET', '/books/1');
        expect(response.status).toBe(200);
        expect(response.body.data).toMatchObject({ type: 'books', id: '1', links: { self: '/books/1' } });
        expect(response.text).not.toContain('SKU-');
      });

      it('is 404 for a book that does not exist, and for a malformed id', async () => {
        for (const path of ['/books/999', '/books/abc', '/books/0']) {
          const response = await client.request('GET', path);
          expect(response.status).toBe(404);
          expect(response.body.errors[0].status).toBe('404');
          expectSecurityHeaders(response);
        }
      });

      it('is reached with or without a trailing slash', async () => {
        const a = await client.request('GET', '/books/2');
        const b = await client.request('GET', '/books/2/');
        expect(b.status).toBe(200);
        expect(b.body).toEqual(a.body);
      });

      it('serves HEAD from GET with the same headers and no body', async () => {
        const get = await client.request('GET', '/books/3');
        const head = await client.request('HEAD', '/books/3');
        expect(head.status).toBe(200);
        expect(head.text).toBe('');
        expect(head.headers['content-length']).toBe(get.headers['content-length']);
        expect(head.headers['content-type']).toBe(get.headers['content-type']);
      });

      it('answers OPTIONS with Allow and 405 with Allow for another method', async () => {
        const options = await client.request('OPTIONS', '/books/3');
        expect(options.status).toBe(204);
        expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
        const put = await client.request('PUT', '/books/3', { headers: JSON_BODY, body: '{}' });
        expect(put.status).toBe(405);
        expect(put.headers.allow).toBe('GET, HEAD, OPTIONS');
        expectSecurityHeaders(put);
      });

      it('is 404 for a path that names no resource', async () => {
        const response = await client.request('GET', '/nothing-here');
        expect(response.status).toBe(404);
        expectSecurityHeaders(response);
      });
    });

    describe('declared links', () => {
      it('links the books list to the orders collection, and following it orders a book', async () => {
        const list = await client.request('GET', '/books?author=Italo%20Calvino');
        expect(list.body.links).toEqual({ self: '/books?author=Italo%20Calvino', order: '/orders' });
        const ordered = await client.request('POST', list.body.links.order, {
          headers: { ...JSON_BODY, authorization: user1 },
          body: JSON.stringify({ bookId: Number(list.body.data[0].id), quantity: 1 }),
        });
        expect(ordered.status).toBe(201);
      });

      it("links a new order's payment; its owner follows it (201), anyone else gets the order's 404", async () => {
        const order = await placeOrder(user1);
        const id = order.body.data.id;
        expect(order.body.links).toEqual({
          self: `/orders/${id}`,
          payment: `/orders/${id}/payments?discount=WELCOME10`,
        });
        const foreign = await client.request('POST', order.body.links.payment, {
          headers: { authorization: user2 },
        });
        expect(foreign.status).toBe(404);
        const paid = await client.request('POST', order.body.links.payment, {
          headers: { authorization: user1, 'idempotency-key': `pay-${id}` },
        });
        expect(paid.status).toBe(201);
        expect(paid.body.data).toMatchObject({
          type: 'payments',
          attributes: { discount: 'WELCOME10' },
          relationships: { order: { data: { type: 'orders', id } } },
        });
        expect(paid.headers.location).toBe(paid.body.links.self);
        const replay = await client.request('POST', order.body.links.payment, {
          headers: { authorization: user1, 'idempotency-key': `pay-${id}` },
        });
        expect(replay.text).toBe(paid.text);
        const read = await client.request('GET', paid.headers.location!, {
          headers: { authorization: user1 },
        });
        expect(read.status).toBe(200);
        expect(read.body.data).toEqual(paid.body.data);
        const other = await client.request('GET', paid.headers.location!, {
          headers: { authorization: user2 },
        });
        expect(other.status).toBe(404);
      });

      it('replays a keyed order byte for byte, its payment link included', async () => {
        const keyed = (key: string) =>
          client.request('POST', '/orders', {
            headers: { ...JSON_BODY, authorization: user1, 'idempotency-key': key },
            body: JSON.stringify({ bookId: 2, quantity: 1 }),
          });
        const first = await keyed('links-replay');
        const again = await keyed('links-replay');
        expect(first.body.links.payment).toBe(`/orders/${first.body.data.id}/payments?discount=WELCOME10`);
        expect(again.text).toBe(first.text);
      });

      it('includes the book of an order on request, once, with an ETag of its own (JSON:API include)', async () => {
        const order = await placeOrder(user1, { bookId: 3, quantity: 1 });
        const path = `/orders/${order.body.data.id}`;
        const plain = await client.request('GET', path, { headers: { authorization: user1 } });
        const withBook = await client.request('GET', `${path}?include=book`, {
          headers: { authorization: user1 },
        });
        expect(withBook.status).toBe(200);
        expect(plain.body.included).toBeUndefined();
        expect(withBook.body.included).toEqual([
          expect.objectContaining({ type: 'books', id: '3', links: { self: '/books/3' } }),
        ]);
        expect(withBook.headers.etag).not.toBe(plain.headers.etag);
        const cached = await client.request('GET', `${path}?include=book`, {
          headers: { authorization: user1, 'if-none-match': plain.headers.etag! },
        });
        expect(cached.status).toBe(200);
        const same = await client.request('GET', `${path}?include=book`, {
          headers: { authorization: user1, 'if-none-match': withBook.headers.etag! },
        });
        expect(same.status).toBe(304);
        const foreign = await client.request('GET', `${path}?include=book`, {
          headers: { authorization: user2 },
        });
        expect(foreign.status).toBe(404);
      });

      it('refuses an include path it does not know: 400 naming the parameter', async () => {
        const order = await placeOrder(user1);
        const response = await client.request('GET', `/orders/${order.body.data.id}?include=nope`, {
          headers: { authorization: user1 },
        });
        expect(response.status).toBe(400);
        expect(response.body.errors[0].source).toEqual({ parameter: 'include' });
        expect(response.body.errors[0].detail).toContain('book');
      });

      it('refuses a discount code it does not know, naming the parameter', async () => {
        const order = await placeOrder(user1);
        const response = await client.request(
          'POST',
          `/orders/${order.body.data.id}/payments?discount=FREE`,
          {
            headers: { authorization: user1 },
          },
        );
        expect(response.status).toBe(400);
        expect(response.body.errors[0].source).toEqual({ parameter: 'discount' });
      });
    });

    describe('POST /orders', () => {
      it('creates an order owned by the caller: 201, Location, the orders resource', async () => {
        const response = await placeOrder(user1, { bookId: 4, quantity: 3 });
        expect(response.status).toBe(201);
        const id = response.body.data.id;
        expect(response.headers.location).toBe(`/orders/${id}`);
        expect(response.body.data).toMatchObject({
          type: 'orders',
          attributes: { bookId: 4, quantity: 3 },
          links: { self: `/orders/${id}` },
          relationships: { book: { data: { type: 'books', id: '4' }, links: { related: '/books/4' } } },
        });
        expect(response.body.links.self).toBe(`/orders/${id}`);
        expectSecurityHeaders(response);
      });

      it('accepts a JSON:API resource document with the same meaning', async () => {
        const response = await client.request('POST', '/orders', {
          headers: { 'content-type': 'application/vnd.api+json', authorization: user1 },
          body: JSON.stringify({ data: { type: 'orders', attributes: { bookId: 4, quantity: 3 } } }),
        });
        expect(response.status).toBe(201);
        expect(response.body.data.attributes).toEqual({ bookId: 4, quantity: 3 });
      });

      it('needs authentication: 401 with a Bearer challenge', async () => {
        const response = await client.request('POST', '/orders', {
          headers: JSON_BODY,
          body: '{"bookId":1,"quantity":1}',
        });
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
        const forged = await placeOrder('Bearer not.a.token');
        expect(forged.status).toBe(401);
        expect(forged.headers['www-authenticate']).toContain('error="invalid_token"');
      });

      it('answers a bad body with 400 and one pointer per bad field', async () => {
        const response = await placeOrder(user1, { bookId: 'one', quantity: 1.5, colour: 'red' });
        expect(response.status).toBe(400);
        const pointers = response.body.errors
          .map((e: { source: { pointer: string } }) => e.source.pointer)
          .sort();
        expect(pointers).toEqual(['/bookId', '/colour', '/quantity']);
        for (const error of response.body.errors) expect(error.status).toBe('400');
      });

      it('points at bookId when the book does not exist, and at quantity when out of range', async () => {
        const unknownBook = await placeOrder(user1, { bookId: 999, quantity: 1 });
        expect(unknownBook.status).toBe(400);
        expect(unknownBook.body.errors[0].source).toEqual({ pointer: '/bookId' });
        const tooMany = await placeOrder(user1, { bookId: 1, quantity: 101 });
        expect(tooMany.status).toBe(400);
        expect(tooMany.body.errors[0].source).toEqual({ pointer: '/quantity' });
      });

      it('answers malformed JSON with 400 and a non-JSON media type with 415', async () => {
        const malformed = await client.request('POST', '/orders', {
          headers: { ...JSON_BODY, authorization: user1 },
          body: '{"bookId":',
        });
        expect(malformed.status).toBe(400);
        expect(malformed.body.errors[0].code).toBe('malformed-json');
        const text = await client.request('POST', '/orders', {
          headers: { 'content-type': 'text/plain', authorization: user1 },
          body: 'bookId=1',
        });
        expect(text.status).toBe(415);
        expect(text.body.errors[0].source).toEqual({ header: 'Content-Type' });
        expectSecurityHeaders(text);
      });

      it('refuses a body over 100 KiB with 413', async () => {
        const huge = JSON.stringify({ bookId: 1, quantity: 1, padding: 'x'.repeat(200 * 1024) });
        const response = await placeOrder(user1, JSON.parse(huge));
        expect(response.status).toBe(413);
        expect(response.body.errors[0].code).toBe('body-too-large');
      });
    });

    describe('GET and DELETE /orders/{id}', () => {
      it('lets the owner read the order back', async () => {
        const created = await placeOrder(user1);
        const read = await client.request('GET', created.headers.location!, {
          headers: { authorization: user1 },
        });
        expect(read.status).toBe(200);
        expect(read.body.data).toEqual(created.body.data);
      });

      it('answers another user with the same 404 as for an order that does not exist', async () => {
        const created = await placeOrder(user1);
        const id = created.body.data.id;
        const stranger = await client.request('GET', `/orders/${id}`, { headers: { authorization: user2 } });
        const absent = await client.request('GET', '/orders/987654', { headers: { authorization: user2 } });
        expect(stranger.status).toBe(404);
        expect(absent.status).toBe(404);
        expect(stranger.body.errors[0].code).toBe(absent.body.errors[0].code);
        expect(stranger.text).not.toContain('"quantity"');
      });

      it('deletes idempotently for the owner (204, 204) and is 404 for anyone else', async () => {
        const created = await placeOrder(user1);
        const path = created.headers.location!;
        expect((await client.request('DELETE', path, { headers: { authorization: user2 } })).status).toBe(
          404,
        );
        const first = await client.request('DELETE', path, { headers: { authorization: user1 } });
        const second = await client.request('DELETE', path, { headers: { authorization: user1 } });
        expect([first.status, second.status]).toEqual([204, 204]);
        expect(first.text).toBe('');
        expectSecurityHeaders(second);
        expect((await client.request('GET', path, { headers: { authorization: user1 } })).status).toBe(404);
        expect((await client.request('DELETE', path, { headers: { authorization: user2 } })).status).toBe(
          404,
        );
      });
    });

    describe('every response', () => {
      it('carries X-Request-Id: echoed when sane, generated otherwise', async () => {
        const echoed = await client.request('GET', '/books/1', { headers: { 'x-request-id': 'abc-123' } });
        expect(echoed.headers['x-request-id']).toBe('abc-123');
        const generated = await client.request('GET', '/books/1', {
          headers: { 'x-request-id': 'x'.repeat(500) },
        });
        expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('answers errors as problem+json when the client asks for it', async () => {
        const accept = 'application/vnd.api+json, application/problem+json';
        const response = await client.request('GET', '/books/999', { headers: { accept } });
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toBe('application/problem+json');
        expect(response.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404 });
        const success = await client.request('GET', '/books/1', { headers: { accept } });
        expect(success.headers['content-type']).toBe('application/vnd.api+json');
      });

      it('answers a client that accepts only problem+json with a 406 problem document', async () => {
        const response = await client.request('GET', '/books/1', {
          headers: { accept: 'application/problem+json' },
        });
        expect(response.status).toBe(406);
        expect(response.body).toMatchObject({ status: 406, title: 'Not Acceptable' });
      });
    });
  },
);

describe('GET /orders/{id}?include=book when the book is gone', () => {
  it('answers `included: []` under an ETag of its own, neither the plain order’s nor the one with the book', async () => {
    const gone = new Set<number>();
    const catalogue = new MemoryBookStore();
    const bookStore: BookStore = {
      list: (filter) => catalogue.list(filter),
      get: async (id) => (gone.has(id) ? undefined : catalogue.get(id)),
    };
    const client = await fetchClient(referenceApp({}, { bookStore }).app);
    try {
      const user = await bearer('1');
      const placed = await client.request('POST', '/orders', {
        headers: { ...JSON_BODY, authorization: user },
        body: JSON.stringify({ bookId: 4, quantity: 1 }),
      });
      expect(placed.status).toBe(201);
      const path = `/orders/${placed.body.data.id}`;
      const read = (url: string, headers: Record<string, string> = {}) =>
        client.request('GET', url, { headers: { authorization: user, ...headers } });
      const withBook = await read(`${path}?include=book`);
      gone.add(4);
      const plain = await read(path);
      const without = await read(`${path}?include=book`);
      expect(without.status).toBe(200);
      expect(without.body.included).toEqual([]);
      expect(plain.body.included).toBeUndefined();
      // Three representations, three entity tags (RFC 9110 section 8.8.3).
      expect(new Set([plain.headers.etag, withBook.headers.etag, without.headers.etag]).size).toBe(3);
      const notPlain = await read(`${path}?include=book`, { 'if-none-match': plain.headers.etag! });
      expect(notPlain.status).toBe(200);
      const same = await read(`${path}?include=book`, { 'if-none-match': without.headers.etag! });
      expect(same.status).toBe(304);
    } finally {
      await client.close();
    }
  });
});
