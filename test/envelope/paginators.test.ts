import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { dataDocument } from '../../src/envelope/build.js';
import {
  cursorPaginator,
  MAX_PAGE_SIZE_LIMIT,
  offsetPageNumbers,
  offsetPaginator,
} from '../../src/envelope/index.js';
import { text } from '../../src/validation/codecs.js';
import { decodeQuery } from '../../src/validation/decode-query.js';
import { send } from '../core/send.js';

/** A listing of `total` items `1..total`, paged by offset, with one more parameter (`tag`) kept. */
function offsetApp(total: number) {
  const pages = offsetPaginator({ defaultSize: 3, maxSize: 10 });
  const all = Array.from({ length: total }, (_, i) => i + 1);
  return createApp().route({
    method: 'GET',
    path: '/items',
    handler: (ctx) => {
      const page = pages.page(decodeQuery(ctx, { ...pages.query, tag: text() }));
      const items = all.slice(page.offset, page.offset + page.size);
      return json(
        200,
        dataDocument(
          items.map((n) => ({ type: 'items', id: String(n) })),
          { links: pages.links(ctx, page, total) },
        ),
      );
    },
  });
}

/** A keyset listing of `1..total`, position `[n]`, with `page[after]`/`page[before]`. */
function cursorApp(total: number) {
  const pages = cursorPaginator({ defaultSize: 3, maxSize: 10 });
  const all = Array.from({ length: total }, (_, i) => i + 1);
  return createApp().route({
    method: 'GET',
    path: '/items',
    handler: (ctx) => {
      const page = pages.page(
        decodeQuery(ctx, { ...pages.query, tag: text() }),
        (position) => position.length === 1 && Number.isSafeInteger(position[0]),
      );
      let items: number[];
      let hasNext: boolean;
      let hasPrev: boolean;
      if (page.before !== undefined) {
        const before = all.filter((n) => n < (page.before![0] as number));
        items = before.slice(-page.size);
        hasPrev = before.length > items.length;
        hasNext = true;
      } else {
        const after = page.after === undefined ? all : all.filter((n) => n > (page.after![0] as number));
        items = after.slice(0, page.size);
        hasNext = after.length > items.length;
        hasPrev = page.after !== undefined;
      }
      const first = items[0];
      const last = items[items.length - 1];
      return json(
        200,
        dataDocument(
          items.map((n) => ({ type: 'items', id: String(n) })),
          {
            links: pages.links(ctx, {
              first: first === undefined ? undefined : [first],
              last: last === undefined ? undefined : [last],
              hasNext,
              hasPrev,
            }),
          },
        ),
      );
    },
  });
}

const idsOf = (body: { data: { id: string }[] }) => body.data.map((item) => Number(item.id));
const pageOf = (link: string) => Number(new URL(link, 'http://x').searchParams.get('page[number]'));

describe('offsetPageNumbers', () => {
  // The model: cut the listing into pages by hand and read the neighbours off the cut.
  test.prop([fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 30 }), fc.nat({ max: 200 })])(
    'links the pages a hand-cut listing has',
    (size, number, total) => {
      const chunks: number[] = [];
      for (let start = 0; start < total; start += size) chunks.push(start);
      const pageCount = Math.max(1, chunks.length);
      const numbers = offsetPageNumbers({ size, number, total });
      expect(numbers.first).toBe(1);
      expect(numbers.last).toBe(pageCount);
      expect(numbers.next).toBe(number < chunks.length ? number + 1 : undefined);
      expect(numbers.prev).toBe(number === 1 ? undefined : Math.min(number - 1, pageCount));
    },
  );
});

describe('offsetPaginator', () => {
  test.prop([fc.nat({ max: 40 }), fc.integer({ min: 1, max: 10 })])(
    'following next from the first page visits every item once, in order',
    async (total, size) => {
      const app = offsetApp(total);
      const seen: number[] = [];
      let url: string | undefined = `/items?tag=a%20b&page%5Bsize%5D=${size}`;
      let steps = 0;
      while (url !== undefined && steps++ <= 41) {
        const res = await send(app, 'GET', url);
        expect(res.status).toBe(200);
        const link = new URL(res.body.links.self, 'http://x');
        expect(link.searchParams.get('tag')).toBe('a b');
        expect(pageOf(res.body.links.first)).toBe(1);
        seen.push(...idsOf(res.body));
        url = res.body.links.next;
      }
      expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    },
  );

  it('uses the default size and links first, last, prev and next, keeping the query', async () => {
    const res = await send(offsetApp(10), 'GET', '/items?tag=x&page%5Bnumber%5D=2');
    expect(idsOf(res.body)).toEqual([4, 5, 6]);
    expect(res.body.links).toEqual({
      self: '/items?tag=x&page%5Bnumber%5D=2',
      first: '/items?tag=x&page%5Bnumber%5D=1',
      last: '/items?tag=x&page%5Bnumber%5D=4',
      prev: '/items?tag=x&page%5Bnumber%5D=1',
      next: '/items?tag=x&page%5Bnumber%5D=3',
    });
  });

  it.each([
    ['page%5Bsize%5D=0', 'page[size]'],
    ['page%5Bsize%5D=11', 'page[size]'],
    ['page%5Bsize%5D=x', 'page[size]'],
    ['page%5Bnumber%5D=0', 'page[number]'],
    ['page%5Bnumber%5D=1.5', 'page[number]'],
    ['page%5Bnumber%5D=1&page%5Bnumber%5D=2', 'page[number]'],
  ])('answers 400 naming the parameter for %s', async (search, parameter) => {
    const res = await send(offsetApp(5), 'GET', `/items?${search}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter });
  });

  it('decodes its own parameters from a context, refusing any other', async () => {
    const pages = offsetPaginator({ defaultSize: 2, maxSize: 5 });
    const app = createApp().route({
      method: 'GET',
      path: '/things',
      handler: (ctx) => json(200, { meta: { ...pages.page(ctx) } }),
    });
    const ok = await send(app, 'GET', '/things?page%5Bnumber%5D=3');
    expect(ok.body.meta).toEqual({ size: 2, number: 3, offset: 4 });
    const other = await send(app, 'GET', '/things?tag=1');
    expect(other.status).toBe(400);
    expect(other.body.errors[0].source).toEqual({ parameter: 'tag' });
  });

  it('rejects bad options at start-up, naming them', () => {
    expect(() => offsetPaginator({ defaultSize: 3, maxSize: 0 })).toThrow(/maxSize/);
    expect(() => offsetPaginator({ defaultSize: 3, maxSize: MAX_PAGE_SIZE_LIMIT + 1 })).toThrow(/maxSize/);
    expect(() => offsetPaginator({ defaultSize: 11, maxSize: 10 })).toThrow(/defaultSize/);
    expect(() => offsetPaginator({ defaultSize: 1.5, maxSize: 10 })).toThrow(/defaultSize/);
    expect(() => cursorPaginator(undefined as never)).toThrow(/options/);
  });
});

describe('cursorPaginator', () => {
  test.prop([fc.nat({ max: 40 }), fc.integer({ min: 1, max: 10 })])(
    'next from the start, then prev from the end, each visit every item once, in order',
    async (total, size) => {
      const app = cursorApp(total);
      const forward: number[] = [];
      let url: string | undefined = `/items?tag=t&page%5Bsize%5D=${size}`;
      let lastUrl = url;
      let steps = 0;
      while (url !== undefined && steps++ <= 41) {
        lastUrl = url;
        const res = await send(app, 'GET', url);
        expect(res.status).toBe(200);
        expect(new URL(res.body.links.self, 'http://x').searchParams.get('tag')).toBe('t');
        forward.push(...idsOf(res.body));
        url = res.body.links.next;
      }
      const model = Array.from({ length: total }, (_, i) => i + 1);
      expect(forward).toEqual(model);
      const backward: number[][] = [];
      url = lastUrl;
      steps = 0;
      while (url !== undefined && steps++ <= 41) {
        const res = await send(app, 'GET', url);
        backward.unshift(idsOf(res.body));
        url = res.body.links.prev;
      }
      expect(backward.flat()).toEqual(model);
    },
  );

  it.each([
    ['page%5Bafter%5D=WzFd&page%5Bbefore%5D=WzFd', 'page[before]'],
    ['page%5Bafter%5D=not-a-cursor', 'page[after]'],
    ['page%5Bbefore%5D=WyJ4Il0', 'page[before]'],
    ['page%5Bsize%5D=11', 'page[size]'],
    [`page%5Bafter%5D=${'A'.repeat(2001)}`, 'page[after]'],
  ])('answers 400 naming the parameter for %s', async (search, parameter) => {
    const res = await send(cursorApp(5), 'GET', `/items?${search}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter });
  });
});
