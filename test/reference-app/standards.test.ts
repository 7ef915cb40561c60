import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStandardStore, type Standard } from '../../examples/reference-app/standards/standard-store.js';
import { ADAPTERS, type TestClient } from '../support/clients.js';
import { APP_MATRIX, bearer, referenceApp, referenceAppOn } from '../support/reference-app.js';

const BASE = '/api/v1/standards/';

describe.each(APP_MATRIX)(
  'the standards API through the $adapter adapter on $dataStore',
  ({ connect, dataStore }) => {
    let built: Awaited<ReturnType<typeof referenceAppOn>>;
    let client: TestClient;
    let reader: string;
    let writer: string;
    let nobody: string;

    beforeAll(async () => {
      built = await referenceAppOn(dataStore);
      client = await connect(built.app);
      reader = await bearer('1', 'standards:read');
      writer = await bearer('1', 'standards:read standards:write');
      nobody = await bearer('2', 'orders:read');
    });
    afterAll(async () => {
      await client.close();
      await built.close();
    });

    let sequence = 0;
    const uniqueCode = () => `STD-${client.adapter.toUpperCase()}-${++sequence}`;
    const create = (attributes: Record<string, unknown>, token = writer) =>
      client.request('POST', BASE, {
        headers: {
          'content-type': 'application/json',
          authorization: token,
          'idempotency-key': `"k-${uniqueCode()}"`,
        },
        body: JSON.stringify(attributes),
      });

    describe('authentication and scopes', () => {
      it('answers 401 without a token and with a bad one, with a Bearer challenge', async () => {
        const none = await client.request('GET', BASE);
        expect(none.status).toBe(401);
        expect(none.headers['www-authenticate']).toBe('Bearer realm="api"');
        const bad = await client.request('GET', BASE, { headers: { authorization: 'Bearer abc.def.ghi' } });
        expect(bad.status).toBe(401);
        expect(bad.headers['www-authenticate']).toContain('invalid_token');
      });

      it('answers 403 without the needed scope', async () => {
        const list = await client.request('GET', BASE, { headers: { authorization: nobody } });
        expect(list.status).toBe(403);
        expect(list.headers['www-authenticate']).toContain('scope="standards:read"');
        const post = await create({ code: uniqueCode(), name: 'x' }, reader);
        expect(post.status).toBe(403);
        expect(post.body.errors[0].code).toBe('insufficient-scope');
      });
    });

    describe('POST /api/v1/standards/', () => {
      it('creates a standard: 201, Location, the standards resource', async () => {
        const code = uniqueCode();
        const response = await create({ code, name: 'Date and time format', description: 'Dates.' });
        expect(response.status).toBe(201);
        const { id } = response.body.data;
        expect(response.headers.location).toBe(`${BASE}${id}`);
        expect(response.body.data).toMatchObject({
          type: 'standards',
          attributes: {
            code,
            name: 'Date and time format',
            description: 'Dates.',
            status: 'draft',
            publishedAt: null,
          },
        });
        expect(response.text).not.toContain('review');
      });

      it('answers 400 for an invalid body, one error per field', async () => {
        const response = await create({ code: 'lower case', status: 'final' });
        expect(response.status).toBe(400);
        const pointers = response.body.errors
          .map((e: { source: { pointer: string } }) => e.source.pointer)
          .sort();
        expect(pointers).toEqual(['/code', '/name', '/status']);
      });

      it('answers 409 for a second standard with the same code', async () => {
        const code = uniqueCode();
        expect((await create({ code, name: 'first' })).status).toBe(201);
        const second = await create({ code, name: 'second' });
        expect(second.status).toBe(409);
        expect(second.body.errors[0]).toMatchObject({ code: 'duplicate-code', source: { pointer: '/code' } });
      });
    });

    describe('GET, PATCH and DELETE /api/v1/standards/{standard_id}', () => {
      it('reads, changes and deletes idempotently', async () => {
        const made = await create({ code: uniqueCode(), name: 'Before' });
        const path = made.headers.location!;
        const read = await client.request('GET', path, { headers: { authorization: reader } });
        expect(read.status).toBe(200);
        expect(read.headers.etag).toMatch(/^"[^"]+"$/);
        expect(read.body.data.id).toBe(made.body.data.id);

        const patched = await client.request('PATCH', path, {
          headers: {
            'content-type': 'application/json',
            authorization: writer,
            'if-match': read.headers.etag!,
          },
          body: JSON.stringify({ name: 'After', status: 'published' }),
        });
        expect(patched.status).toBe(200);
        expect(patched.body.data.attributes).toMatchObject({ name: 'After', status: 'published' });
        expect(Date.parse(patched.body.data.attributes.publishedAt)).not.toBeNaN();

        const first = await client.request('DELETE', path, { headers: { authorization: writer } });
        const second = await client.request('DELETE', path, { headers: { authorization: writer } });
        expect([first.status, second.status]).toEqual([204, 204]);
        expect((await client.request('GET', path, { headers: { authorization: reader } })).status).toBe(404);
      });

      it('answers 404 for an id that names nothing', async () => {
        const response = await client.request('GET', `${BASE}does-not-exist`, {
          headers: { authorization: reader },
        });
        expect(response.status).toBe(404);
        const removed = await client.request('DELETE', `${BASE}does-not-exist`, {
          headers: { authorization: writer },
        });
        expect(removed.status).toBe(404);
      });
    });

    describe('GET /api/v1/standards/ query parameters', () => {
      it('refuses unknown and malformed parameters naming them in source.parameter', async () => {
        for (const [query, parameter] of [
          ['colour=red', 'colour'],
          ['page[size]=0', 'page[size]'],
          ['page[size]=abc', 'page[size]'],
          ['page[after]=not-a-cursor', 'page[after]'],
          ['filter[status]=final', 'filter[status]'],
          ['sort=-nope', 'sort'],
          ['fields[standards]=secret', 'fields[standards]'],
        ] as const) {
          const response = await client.request('GET', `${BASE}?${query}`, {
            headers: { authorization: reader },
          });
          expect(response.status, query).toBe(400);
          expect(response.body.errors[0].source).toEqual({ parameter });
        }
      });

      it('filters by status, sorts and returns sparse fieldsets', async () => {
        const tag = uniqueCode();
        await create({ code: `${tag}-A`, name: 'A', status: 'published' });
        await create({ code: `${tag}-B`, name: 'B', status: 'retired' });
        await create({ code: `${tag}-C`, name: 'C', status: 'retired' });
        const response = await client.request(
          'GET',
          `${BASE}?filter[status]=retired&sort=-code&fields[standards]=name,code`,
          {
            headers: { authorization: reader },
          },
        );
        expect(response.status).toBe(200);
        expect(response.body.data.length).toBeGreaterThanOrEqual(2);
        for (const standard of response.body.data) {
          expect(Object.keys(standard.attributes).sort()).toEqual(['code', 'name']);
        }
        const codes = response.body.data.map((s: { attributes: { code: string } }) => s.attributes.code);
        expect(codes).toEqual([...codes].sort().reverse());
      });
    });
  },
);

/** An independent statement of the listing order: the sort field (nulls last), then the id. */
function expectedOrder(all: readonly Standard[], sort: string): string[] {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as 'code' | 'name' | 'publishedAt';
  const value = (s: Standard) => (field === 'publishedAt' ? (s.publishedAt?.getTime() ?? null) : s[field]);
  return [...all]
    .sort((a, b) => {
      const x = value(a);
      const y = value(b);
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * (descending ? -1 : 1);
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    })
    .map((s) => s.id);
}

describe('cursor pagination', () => {
  it('walks every standard exactly once, in order, forwards by next and backwards by prev', async () => {
    const reader = await bearer('1', 'standards:read');
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[A-Z][A-Z0-9]{0,5}$/), { minLength: 0, maxLength: 25 }),
        fc.array(fc.constantFrom('draft', 'published', 'retired'), { minLength: 25, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('code', '-code', 'publishedAt', '-name'),
        async (codes, statuses, size, sort) => {
          const store = new MemoryStandardStore();
          for (const [i, code] of codes.entries())
            await store.create({ code, name: `N${i % 3}`, status: statuses[i] as 'draft' });
          const client = await ADAPTERS[1].connect(referenceApp({}, { standardStore: store }).app);
          const seen: string[] = [];
          let pages: Array<{ data: Array<{ id: string }>; links: Record<string, string> }> = [];
          let next: string | undefined = `${BASE}?page[size]=${size}&sort=${sort}`;
          while (next !== undefined) {
            const response = await client.request('GET', next, { headers: { authorization: reader } });
            expect(response.status).toBe(200);
            expect(response.body.data.length).toBeLessThanOrEqual(size);
            pages = [...pages, response.body];
            seen.push(...response.body.data.map((s: { id: string }) => s.id));
            next = response.body.links.next;
          }
          expect(seen).toEqual(expectedOrder(await store.list(), sort));
          // Walking back with prev from the last page reproduces the earlier pages.
          for (let i = pages.length - 1; i > 0; i--) {
            const response = await client.request('GET', pages[i]!.links.prev!, {
              headers: { authorization: reader },
            });
            expect(response.body.data.map((s: { id: string }) => s.id)).toEqual(
              pages[i - 1]!.data.map((s) => s.id),
            );
          }
          expect(pages[0]!.links.prev).toBeUndefined();
        },
      ),
      { numRuns: 40 },
    );
  });
});
