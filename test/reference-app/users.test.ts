import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_USERS, MemoryUserStore, type User } from '../../examples/reference-app/users/user-store.js';
import type { ADAPTERS, TestClient, TestResponse } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceAppOn } from '../support/reference-app.js';
import { assertJsonApi } from '../support/schemas.js';

/** A field the store holds and no response may ever carry, added on top of `passwordHash`. */
type StoredUser = User & { readonly socialSecurityNumber: string };
const SECRET_PREFIX = 'SECRET-SSN-';
const GRACE: User = {
  id: '3',
  givenName: 'Grace',
  familyName: 'Hopper',
  email: 'grace@example.com',
  accountType: 'standard',
  updatedAt: new Date('2026-02-01T12:00:00Z'),
  passwordHash: '$argon2id$v=19$seed-3',
};
const STORED_USERS: readonly StoredUser[] = [...DEFAULT_USERS, GRACE].map((user) => ({
  ...user,
  socialSecurityNumber: `${SECRET_PREFIX}${user.id}`,
}));
const EXISTING = new Set(STORED_USERS.map((u) => u.id));
const emailOf = (id: string) => STORED_USERS.find((u) => u.id === id)?.email;

/** Nothing the store keeps for itself may reach a body: checked on every response of this file. */
function expectNoSecrets(response: TestResponse): void {
  for (const user of STORED_USERS) {
    expect(response.text).not.toContain(user.passwordHash);
    expect(response.text).not.toContain(user.socialSecurityNumber);
  }
  for (const field of ['passwordHash', 'socialSecurityNumber', 'updatedAt', 'ownerId', 'internalSku']) {
    expect(response.text).not.toContain(field);
  }
}

const tokens = new Map<string, string>();
async function token(sub: string, scope?: string): Promise<string> {
  const cacheKey = `${sub}|${scope ?? ''}`;
  let value = tokens.get(cacheKey);
  if (value === undefined) {
    value = await bearer(sub, scope);
    tokens.set(cacheKey, value);
  }
  return value;
}

/** A connected reference app whose user store holds users 1..3 with secret fields. */
async function connectApp(connect: (typeof ADAPTERS)[number]['connect'], dataStore: 'memory' | 'postgres') {
  const built = await referenceAppOn(dataStore, {}, { userStore: new MemoryUserStore(STORED_USERS) });
  const connected = await connect(built.app);
  const client: TestClient = {
    ...connected,
    close: async () => {
      await connected.close();
      await built.close();
    },
  };
  const owners = new Map<string, string>();
  const get = async (path: string, authorization?: string, ifNoneMatch?: string) => {
    const headers = {
      ...(authorization ? { authorization } : {}),
      ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}),
    };
    const response = await client.request('GET', path, { headers });
    expectNoSecrets(response);
    return response;
  };
  const placeOrder = async (owner: string, bookId = 1): Promise<string> => {
    const response = await client.request('POST', '/orders', {
      headers: { 'content-type': 'application/json', authorization: await token(owner) },
      body: JSON.stringify({ bookId, quantity: 2 }),
    });
    expect(response.status).toBe(201);
    const id: string = response.body.data.id;
    owners.set(id, owner);
    return id;
  };
  return { client, owners, get, placeOrder };
}

/** The error body with the id the request named (quoted in `detail`) replaced, to compare across ids. */
function normalized(response: TestResponse, id: string): unknown {
  const { errors } = response.body as { errors: Array<{ detail: string }> };
  return { errors: errors.map((e) => ({ ...e, detail: e.detail.replace(JSON.stringify(id), '"<id>"') })) };
}

describe.each(APP_MATRIX)(
  'the users API through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let app: Awaited<ReturnType<typeof connectApp>>;
    let client: TestClient;
    beforeAll(async () => {
      app = await connectApp(connect, dataStore);
      client = app.client;
    });
    afterAll(() => client.close());

    describe('GET /users/{id}', () => {
      it('shows the owner their name and email, with links to the user and their orders', async () => {
        const response = await app.get('/users/1', await token('1'));
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          data: {
            type: 'users',
            id: '1',
            attributes: { name: 'Ada Lovelace', email: 'ada@example.com' },
            relationships: {
              orders: { links: { related: '/users/1/orders' } },
              accountType: {
                data: { type: 'account-types', id: 'premium' },
                links: { related: '/users/1/account-type' },
              },
            },
            links: { self: '/users/1' },
          },
          links: { self: '/users/1' },
        });
      });

      it('links only to endpoints that answer', async () => {
        const owner = await token('1');
        const { body } = await app.get('/users/1', owner);
        for (const link of [
          body.links.self,
          body.data.links.self,
          body.data.relationships.orders.links.related,
          body.data.relationships.accountType.links.related,
        ]) {
          expect((await app.get(link, owner)).status, link).toBe(200);
        }
      });

      it('links every listed order to a path each permitted reader can follow', async () => {
        await app.placeOrder('1');
        for (const reader of [await token('1'), await token('admin', 'users:read')]) {
          const { body } = await app.get('/users/1/orders', reader);
          expect(body.data.length).toBeGreaterThan(0);
          for (const order of body.data) {
            expect(order.links.self).toBe(`/users/1/orders/${order.id}`);
            expect((await app.get(order.links.self, reader)).status).toBe(200);
          }
        }
      });

      it('gives the owner\u2019s representation and a reader\u2019s different ETags', async () => {
        const ownerView = await app.get('/users/1', await token('1'));
        const reader = await token('admin', 'users:read');
        const readerView = await app.client.request('GET', '/users/1', {
          headers: { authorization: reader, 'if-none-match': ownerView.headers.etag! },
        });
        expect(readerView.status).toBe(200);
        expect(readerView.headers.etag).not.toBe(ownerView.headers.etag);
        expect(readerView.body.data.attributes.email).toBeUndefined();
      });

      it('shows a users:read token the name but never the email', async () => {
        const response = await app.get('/users/2', await token('admin', 'users:read'));
        expect(response.status).toBe(200);
        expect(response.body.data.attributes).toEqual({ name: 'Alan Turing' });
        expect(response.text).not.toContain('alan@example.com');
      });

      it('is 401 with a Bearer challenge without a token, 403 for another user, 404 for no such user', async () => {
        const anonymous = await app.get('/users/1');
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="api"');
        const other = await app.get('/users/2', await token('1'));
        expect(other.status).toBe(403);
        expect(other.text).not.toContain('Alan');
        expect((await app.get('/users/99', await token('99'))).status).toBe(404);
        expect((await app.get('/users/99', await token('admin', 'users:read'))).status).toBe(404);
      });
    });

    describe('GET /users/{id}/account-type', () => {
      it('answers the user’s account type as an account-types resource', async () => {
        const premium = await app.get('/users/1/account-type', await token('1'));
        expect(premium.status).toBe(200);
        expect(premium.body).toEqual({
          data: { type: 'account-types', id: 'premium', attributes: { name: 'premium' } },
          links: { self: '/users/1/account-type' },
        });
        const standard = await app.get('/users/2/account-type', await token('admin', 'users:read'));
        expect(standard.body.data).toMatchObject({ type: 'account-types', id: 'standard' });
      });

      it('follows the same access rule as the user', async () => {
        expect((await app.get('/users/2/account-type', await token('1'))).status).toBe(403);
        expect((await app.get('/users/2/account-type')).status).toBe(401);
      });
    });

    describe('GET /users/{id}/orders/{order_id}', () => {
      it('answers the owner’s order under the owner, with the nested self link', async () => {
        const id = await app.placeOrder('1');
        const response = await app.get(`/users/1/orders/${id}`, await token('1'));
        expect(response.status).toBe(200);
        expect(response.body.data).toMatchObject({
          type: 'orders',
          id,
          attributes: { bookId: 1, quantity: 2 },
        });
        expect(response.body.links.self).toBe(`/users/1/orders/${id}`);
        expect((await app.get(response.body.data.links.self, await token('1'))).status).toBe(200);
      });
    });

    describe('when user 1 enumerates order ids (BOLA)', () => {
      it('learns nothing about user 2’s orders: the same 404 as for ids that never existed', async () => {
        const mine = [await app.placeOrder('1'), await app.placeOrder('1')];
        const theirs = [await app.placeOrder('2'), await app.placeOrder('2'), await app.placeOrder('3')];
        const user1 = await token('1');
        const highest = Math.max(...[...app.owners.keys()].map(Number));
        const never = String(highest + 1000);
        let foreignProbes = 0;
        for (const template of ['/users/1/orders/', '/orders/']) {
          const baseline = await app.get(`${template}${never}`, user1);
          expect(baseline.status).toBe(404);
          for (let id = 1; id <= highest + 3; id++) {
            const raw = String(id);
            const response = await app.get(`${template}${raw}`, user1);
            if (app.owners.get(raw) === '1') {
              expect(response.status).toBe(200);
              continue;
            }
            if (app.owners.has(raw)) foreignProbes++;
            expect(response.status, `${template}${raw}`).toBe(404);
            expect(normalized(response, raw)).toEqual(normalized(baseline, never));
            expect(Object.keys(response.headers).sort()).toEqual(Object.keys(baseline.headers).sort());
            expect(response.text).not.toContain('alan@example.com');
          }
        }
        // Every order of users 2 and 3 was probed on both paths.
        expect(foreignProbes).toBeGreaterThanOrEqual(2 * theirs.length);
        expect(mine.every((id) => app.owners.get(id) === '1')).toBe(true);
      });

      it('is refused 403 under another user whatever order id it names, with one body for all', async () => {
        const theirs = await app.placeOrder('2');
        const user1 = await token('1');
        const bodies = new Set<string>();
        for (const id of [theirs, '999999']) {
          const response = await app.get(`/users/2/orders/${id}`, user1);
          expect(response.status).toBe(403);
          bodies.add(response.text);
        }
        expect(bodies.size).toBe(1);
      });

      it('answers a malformed order id 404 before any guard, under its own user and another alike', async () => {
        const user1 = await token('1');
        const own = await app.get('/users/1/orders/abc', user1);
        const foreign = await app.get('/users/2/orders/abc', user1);
        expect([own.status, foreign.status]).toEqual([404, 404]);
        expect(foreign.body.errors[0].detail).toBe('No resource exists at this path.');
        expect(normalized(foreign, 'abc')).toEqual(normalized(own, 'abc'));
      });
    });

    describe('when a secret field is added to the stored user', () => {
      it('never appears in any response of any endpoint, for any caller', async () => {
        const orderOf1 = await app.placeOrder('1');
        const paths = [
          '/users/1',
          '/users/2',
          '/users/3',
          '/users/1/orders',
          '/users/1/orders?page%5Bsize%5D=1',
          `/users/1/orders/${orderOf1}`,
          '/users/1/account-type',
          `/orders/${orderOf1}`,
          '/books',
          '/books/1',
        ];
        const callers = [undefined, await token('1'), await token('2'), await token('admin', 'users:read')];
        let ok = 0;
        for (const path of paths) {
          for (const caller of callers) {
            const response = await app.get(path, caller); // get() checks every body for secrets
            if (response.status === 200) ok++;
          }
        }
        expect(ok).toBeGreaterThan(paths.length);
      });
    });
  },
);

describe.each(APP_MATRIX)(
  'pagination of GET /users/{id}/orders through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let app: Awaited<ReturnType<typeof connectApp>>;
    let ordersOf1: string[];
    let user1: string;
    beforeAll(async () => {
      app = await connectApp(connect, dataStore);
      user1 = await token('1');
      ordersOf1 = [];
      for (let i = 0; i < 23; i++) {
        ordersOf1.push(await app.placeOrder('1'));
        if (i % 8 === 0) await app.placeOrder('2');
      }
    });
    afterAll(() => app.client.close());

    it('pages 10 at a time by default and follows links.next to the end, which has none', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let next: string | undefined = '/users/1/orders';
      while (next !== undefined) {
        const response: TestResponse = await app.get(next, user1);
        expect(response.status).toBe(200);
        sizes.push(response.body.data.length);
        for (const order of response.body.data) {
          expect(order.type).toBe('orders');
          expect(Object.keys(order.attributes).sort()).toEqual(['bookId', 'quantity']);
          seen.push(order.id);
        }
        next = response.body.links.next;
      }
      expect(sizes).toEqual([10, 10, 3]);
      expect(seen).toEqual(ordersOf1);
    });

    it('has links.self as requested and first/last/prev/next that all answer', async () => {
      const response = await app.get('/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=2', user1);
      expect(response.body.links.self).toBe('/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=2');
      expect(response.body.links).toMatchObject({
        first: '/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=1',
        prev: '/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=1',
        next: '/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=3',
        last: '/users/1/orders?page%5Bsize%5D=5&page%5Bnumber%5D=5',
      });
      for (const link of Object.values(response.body.links) as string[]) {
        expect((await app.get(link, user1)).status, link).toBe(200);
      }
      expect(response.body.data.map((o: { id: string }) => o.id)).toEqual(ordersOf1.slice(5, 10));
    });

    it('serves up to 100 per page and no next link when everything fits', async () => {
      const response = await app.get('/users/1/orders?page%5Bsize%5D=100', user1);
      expect(response.body.data).toHaveLength(23);
      expect(response.body.links.next).toBeUndefined();
    });

    it('answers a page past the end with an empty collection and no next link', async () => {
      const response = await app.get('/users/1/orders?page%5Bnumber%5D=9', user1);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.links.next).toBeUndefined();
      expect((await app.get(response.body.links.prev, user1)).body.data).toHaveLength(3);
    });

    it('refuses a page size above 100, below 1 or not a number with 400 naming the parameter', async () => {
      for (const query of [
        'page%5Bsize%5D=101',
        'page%5Bsize%5D=0',
        'page%5Bnumber%5D=x',
        'page%5Bnumber%5D=1.5',
      ]) {
        const response = await app.get(`/users/1/orders?${query}`, user1);
        expect(response.status, query).toBe(400);
        expect(response.body.errors[0].source.parameter).toBe(decodeURIComponent(query.split('=')[0]!));
      }
    });

    it('lists an empty collection for a user without orders', async () => {
      const response = await app.get('/users/3/orders', await token('3'));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.links.next).toBeUndefined();
    });
  },
);

/** The books of user 1's orders, in order: repeats, so `included` must hold each book once. */
const BOOKS_OF_1 = [3, 1, 3, 5, 1, 3, 9];

/** The model of `included` for a page: the distinct books of its orders, in order of first appearance. */
const distinctBooks = (bookIds: readonly number[]) => [...new Set(bookIds)].map(String);

describe.each(APP_MATRIX)(
  'include=book on GET /users/{id}/orders through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let app: Awaited<ReturnType<typeof connectApp>>;
    let user1: string;
    const includedIds = (response: TestResponse) =>
      (response.body.included as Array<{ type: string; id: string }>).map((book) => {
        expect(book.type).toBe('books');
        return book.id;
      });
    beforeAll(async () => {
      app = await connectApp(connect, dataStore);
      user1 = await token('1');
      // User 2's order of a book user 1 never ordered: it must never reach user 1's listing.
      await app.placeOrder('2', 7);
      for (const bookId of BOOKS_OF_1) await app.placeOrder('1', bookId);
    });
    afterAll(() => app.client.close());

    it('holds each book of the page once, valid JSON:API, with an ETag of its own', async () => {
      const plain = await app.get('/users/1/orders', user1);
      const withBooks = await app.get('/users/1/orders?include=book', user1);
      expect(withBooks.status).toBe(200);
      assertJsonApi(plain.body);
      assertJsonApi(withBooks.body);
      expect(plain.body.included).toBeUndefined();
      expect(withBooks.body.data).toEqual(plain.body.data);
      expect(includedIds(withBooks)).toEqual(['3', '1', '5', '9']);
      expect(withBooks.body.included[0]).toMatchObject({
        attributes: { title: 'The Dispossessed', author: 'Ursula K. Le Guin' },
        links: { self: '/books/3' },
      });
      expect(withBooks.headers.etag).toBeDefined();
      expect(withBooks.headers.etag).not.toBe(plain.headers.etag);
      const stale = await app.get('/users/1/orders?include=book', user1, plain.headers.etag);
      expect(stale.status).toBe(200);
      const fresh = await app.get('/users/1/orders?include=book', user1, withBooks.headers.etag);
      expect(fresh.status).toBe(304);
    });

    it('includes only the books of the page, and its links keep asking for them', async () => {
      const first = await app.get('/users/1/orders?include=book&page%5Bsize%5D=2', user1);
      expect(includedIds(first)).toEqual(['3', '1']);
      const second = await app.get(first.body.links.next, user1);
      assertJsonApi(second.body);
      expect(includedIds(second)).toEqual(['3', '5']);
    });

    it('gives a users:read reader the same books, and another user none (403)', async () => {
      const reader = await app.get('/users/1/orders?include=book', await token('2', 'users:read'));
      expect(reader.status).toBe(200);
      expect(includedIds(reader)).toEqual(['3', '1', '5', '9']);
      const other = await app.get('/users/1/orders?include=book', await token('2'));
      expect(other.status).toBe(403);
      expect(other.body.included).toBeUndefined();
    });

    it('refuses an include path it does not know: 400 naming the include parameter', async () => {
      for (const include of ['nope', 'book,nope', 'book.author', '']) {
        const response = await app.get(`/users/1/orders?include=${encodeURIComponent(include)}`, user1);
        expect(response.status, include).toBe(400);
        assertJsonApi(response.body);
        expect(response.body.errors[0].source).toEqual({ parameter: 'include' });
      }
    });

    it('property: included is the distinct books of exactly the page asked for', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.integer({ min: 1, max: 9 }),
          async (size, number) => {
            const response = await app.get(
              `/users/1/orders?include=book&page%5Bsize%5D=${size}&page%5Bnumber%5D=${number}`,
              user1,
            );
            expect(response.status).toBe(200);
            assertJsonApi(response.body);
            const page = BOOKS_OF_1.slice((number - 1) * size, number * size);
            expect(includedIds(response)).toEqual(distinctBooks(page));
          },
        ),
        { seed: 43, numRuns: 15 },
      );
    });
  },
);

/** A random request against the users API, with who asks for it. */
const request = fc.record({
  newOrders: fc.array(fc.constantFrom('1', '2', '3', '4'), { maxLength: 3 }),
  principal: fc.option(
    fc.record({
      sub: fc.constantFrom('1', '2', '3', '4'),
      scope: fc.constantFrom(undefined, 'users:read', 'orders:read'),
    }),
  ),
  userId: fc.constantFrom('1', '2', '3', '4'),
  endpoint: fc.constantFrom('user', 'orders', 'order', 'account-type'),
  orderPick: fc.oneof(fc.nat(), fc.constantFrom('absent', 'malformed')),
});

describe.each(APP_MATRIX)(
  'property: ownership through the real app ($adapter adapter, $dataStore)',
  ({ connect, dataStore }) => {
    let app: Awaited<ReturnType<typeof connectApp>>;
    beforeAll(async () => {
      app = await connectApp(connect, dataStore);
    });
    afterAll(() => app.client.close());

    it('succeeds iff the principal may read the user and the order is that user’s; else exactly 401/403/404, leaking nothing', async () => {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          for (const owner of r.newOrders) await app.placeOrder(owner);
          const known = [...app.owners.keys()];
          const orderId =
            typeof r.orderPick === 'number'
              ? (known[r.orderPick % Math.max(known.length, 1)] ?? '999999')
              : r.orderPick === 'absent'
                ? '999999'
                : 'abc';
          const suffix = {
            user: '',
            orders: '/orders',
            order: `/orders/${orderId}`,
            'account-type': '/account-type',
          }[r.endpoint];
          const authorization =
            r.principal === null ? undefined : await token(r.principal.sub, r.principal.scope);
          const response = await app.get(`/users/${r.userId}${suffix}`, authorization);

          const mayRead =
            r.principal !== null && (r.principal.sub === r.userId || r.principal.scope === 'users:read');
          const expected =
            r.principal === null
              ? 401
              : // A malformed path id names no resource: 404 before any guard reads a store.
                r.endpoint === 'order' && orderId === 'abc'
                ? 404
                : !mayRead
                  ? 403
                  : !EXISTING.has(r.userId)
                    ? 404
                    : r.endpoint === 'order' && app.owners.get(orderId) !== r.userId
                      ? 404
                      : 200;
          expect(response.status).toBe(expected);

          // No other user's data: emails only of the caller, orders only of the user in the path.
          for (const user of STORED_USERS) {
            if (user.id !== r.principal?.sub) expect(response.text).not.toContain(user.email);
          }
          if (expected !== 200) {
            expect(Object.keys(response.body)).toEqual(['errors']);
            return;
          }
          const data = response.body.data;
          if (r.endpoint === 'orders') {
            for (const order of data) expect(app.owners.get(order.id)).toBe(r.userId);
            expect(data.length).toBe(
              Math.min(10, [...app.owners.values()].filter((o) => o === r.userId).length),
            );
          }
          if (r.endpoint === 'order') expect(data.id).toBe(orderId);
          if (r.endpoint === 'user') {
            expect(data.attributes.email === emailOf(r.userId)).toBe(r.principal?.sub === r.userId);
          }
        }),
        { numRuns: 60 },
      );
    });
  },
);
