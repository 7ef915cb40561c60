import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { dataDocument } from '../../src/envelope/build.js';
import { decodeCursor, encodeCursor, pageLink } from '../../src/envelope/pagination.js';
import { send } from '../core/send.js';

const app = createApp().route({
  method: 'GET',
  path: '/books',
  handler: (ctx) =>
    json(
      200,
      dataDocument([], {
        links: {
          next: pageLink(ctx, { 'page[after]': 'c2', 'page[before]': undefined }),
          first: pageLink(ctx, { 'page[after]': undefined }),
        },
      }),
    ),
});

describe('pagination helpers', () => {
  describe('pageLink', () => {
    it('replaces and removes the given parameters and keeps every other one', async () => {
      const res = await send(app, 'GET', '/books/?author=Le%20Guin&page%5Bbefore%5D=c0&page%5Bsize%5D=2');
      const next = new URL(res.body.links.next, 'http://x');
      expect(next.pathname).toBe('/books');
      expect([...next.searchParams]).toEqual([
        ['author', 'Le Guin'],
        ['page[size]', '2'],
        ['page[after]', 'c2'],
      ]);
    });

    it('leaves no dangling "?" when nothing remains', async () => {
      const res = await send(app, 'GET', '/books?page%5Bafter%5D=c1');
      expect(res.body.links.first).toBe('/books');
    });
  });

  describe('cursors', () => {
    it('round-trip any position (property)', () => {
      const position = fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 4 });
      fc.assert(
        fc.property(position, (p) => {
          const cursor = encodeCursor(p);
          expect(cursor).toMatch(/^[A-Za-z0-9_-]*$/);
          expect(decodeCursor(cursor)).toEqual(p);
        }),
      );
    });

    it('decode to undefined when they are not ours', () => {
      for (const cursor of [
        '',
        'not base64 at all!',
        Buffer.from('{"a":1}').toString('base64url'),
        Buffer.from('[{}]').toString('base64url'),
      ]) {
        expect(decodeCursor(cursor), cursor).toBeUndefined();
      }
    });

    it('never throw, whatever the client sends (property)', () => {
      fc.assert(
        fc.property(fc.string(), (cursor) => {
          const decoded = decodeCursor(cursor);
          expect(decoded === undefined || Array.isArray(decoded)).toBe(true);
        }),
      );
    });
  });
});
