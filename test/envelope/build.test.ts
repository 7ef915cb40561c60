import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import {
  collectIncluded,
  dataDocument,
  relatedLink,
  resourceObject,
  selfLink,
  toMany,
  toOne,
} from '../../src/envelope/build.js';
import type { ResourceIdentifier, ResourceObject } from '../../src/envelope/types.js';
import { send } from '../core/send.js';
import { assertJsonApi } from '../support/schemas.js';

const author = (id: string, bookIds: string[]): ResourceObject =>
  resourceObject(
    'authors',
    id,
    { name: `Author ${id}` },
    {
      relationships: { books: toMany(bookIds.map((b) => ({ type: 'books', id: b }))) },
    },
  );
const book = (id: string, authorId: string | null): ResourceObject =>
  resourceObject(
    'books',
    id,
    { title: `Book ${id}` },
    {
      relationships: { author: toOne(authorId === null ? null : { type: 'authors', id: authorId }) },
    },
  );

describe('envelope builders', () => {
  describe('relationships', () => {
    it('render empty linkage as null (to-one) and [] (to-many)', () => {
      expect(toOne(null)).toEqual({ data: null });
      expect(toMany([])).toEqual({ data: [] });
      const doc = dataDocument(
        resourceObject(
          'books',
          '1',
          { title: 'x' },
          { relationships: { author: toOne(null), tags: toMany([]) } },
        ),
      );
      assertJsonApi(doc);
      expect(JSON.parse(JSON.stringify(doc)).data.relationships).toEqual({
        author: { data: null },
        tags: { data: [] },
      });
    });

    it('carry links when given, and may be links only', () => {
      expect(toOne({ type: 'authors', id: '1' }, { related: '/authors/1' })).toEqual({
        data: { type: 'authors', id: '1' },
        links: { related: '/authors/1' },
      });
      expect(relatedLink('/books/1/reviews')).toEqual({ links: { related: '/books/1/reviews' } });
      assertJsonApi(
        dataDocument(resourceObject('books', '1', {}, { relationships: { reviews: relatedLink('/r') } })),
      );
    });
  });

  describe('dataDocument', () => {
    it('builds a single-resource, a collection and an empty document', () => {
      for (const data of [book('1', '9'), [book('1', '9'), book('2', null)], [], null]) {
        const doc = dataDocument(data, { links: { self: '/books' }, meta: { total: 2 } });
        assertJsonApi(doc);
        expect(doc).toEqual({ data, links: { self: '/books' }, meta: { total: 2 } });
      }
    });

    it('leaves out members it was not given', () => {
      expect(dataDocument(null)).toEqual({ data: null });
      expect(Object.keys(dataDocument([]))).toEqual(['data']);
    });

    it('deduplicates included by (type, id) and never repeats a primary resource', () => {
      const primary = [book('1', '7'), book('2', '7')];
      const doc = dataDocument(primary, {
        included: [author('7', ['1', '2']), author('7', ['1', '2']), book('1', '7'), book('3', '7')],
      });
      assertJsonApi(doc);
      expect(doc.included?.map((r) => `${r.type}/${r.id}`)).toEqual(['authors/7', 'books/3']);
    });

    it('keeps resources of different types that share an id', () => {
      const doc = dataDocument(book('1', '1'), { included: [author('1', ['1'])] });
      expect(doc.included).toHaveLength(1);
    });
  });

  describe('collectIncluded', () => {
    const store = new Map<string, ResourceObject>(
      [author('7', ['1', '2']), book('1', '7'), book('2', '7'), author('8', []), book('3', '8')].map((r) => [
        `${r.type}/${r.id}`,
        r,
      ]),
    );
    const resolve = (id: ResourceIdentifier) => store.get(`${id.type}/${id.id}`);

    it('terminates on a cycle (books → author → books) and includes each resource once', () => {
      const included = collectIncluded([book('1', '7')], resolve, 10);
      expect(included.map((r) => `${r.type}/${r.id}`)).toEqual(['authors/7', 'books/2']);
    });

    it('follows only direct relationships by default', () => {
      expect(collectIncluded([book('1', '7')], resolve).map((r) => r.id)).toEqual(['7']);
    });

    it('leaves out what the resolver does not know', () => {
      expect(collectIncluded([book('4', '99')], resolve, 3)).toEqual([]);
    });

    it('terminates with an unbounded depth', () => {
      expect(collectIncluded([author('7', ['1', '2'])], resolve, Number.POSITIVE_INFINITY)).toHaveLength(2);
    });
  });

  describe('selfLink', () => {
    const app = createApp()
      .route({
        method: 'GET',
        path: '/books',
        handler: (ctx) => json(200, dataDocument([], { links: { self: selfLink(ctx) } })),
      })
      .route({
        method: 'GET',
        path: '/authors/',
        handler: (ctx) => json(200, dataDocument([], { links: { self: selfLink(ctx) } })),
      });

    it('reproduces the query of a collection request', async () => {
      const res = await send(app, 'GET', '/books?author=Frank%20Herbert&page%5Bsize%5D=2');
      expect(res.body.links.self).toBe('/books?author=Frank%20Herbert&page%5Bsize%5D=2');
    });

    it('uses the canonical form the route was registered with', async () => {
      expect((await send(app, 'GET', '/books/')).body.links.self).toBe('/books');
      expect((await send(app, 'GET', '/authors')).body.links.self).toBe('/authors/');
    });
  });
});
