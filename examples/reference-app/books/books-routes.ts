import { conditional, digestEtag, versionEtag } from 'rest-conventions/caching';
import {
  type Context,
  defineRoute,
  json,
  linkTo,
  type ResourceSchema,
  targetUrl,
} from 'rest-conventions/core';
import { dataDocument, defineResourceType, selfLink } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { strictObject, text } from 'rest-conventions/validation';
import { bookId } from '../ids.js';
import { BOOK, ORDERS } from '../route-targets.js';
import type { Book, BookStore } from './book-store.js';

/** How a book is shown: `title` and `author` only. */
export const bookResource = defineResourceType<Book, 'title' | 'author'>({
  type: 'books',
  id: (book) => book.id,
  attributes: ['title', 'author'],
  links: (book) => ({ self: targetUrl(BOOK, { id: book.id }) }),
});

/** A book as the API description types it: both attributes are always sent. */
export const bookSchema: ResourceSchema = {
  type: 'books',
  id: bookId,
  attributes: strictObject({ title: text({ maxLength: 500 }), author: text({ maxLength: 200 }) }),
};

const publicMinute = { scope: 'public', maxAge: 60 } as const;

function lastChange(books: readonly Book[]): number | undefined {
  let latest: number | undefined;
  for (const book of books) latest = Math.max(latest ?? 0, book.updatedAt.getTime());
  return latest;
}

/** `GET /books?author=` and `GET /books/{id}`: public, read-only, cacheable for a minute. */
export function booksRoutes(deps: { readonly bookStore: BookStore }) {
  const { bookStore } = deps;
  // Each route loads its records once, for its validators and its handler: a 304 is answered before
  // the document is built, and nothing is hashed but ids and versions.
  const listed = conditional({
    policy: publicMinute,
    load: (ctx: Context<{}, { readonly author?: string }>) => {
      const { author } = ctx.query;
      return bookStore.list(author === undefined ? {} : { author });
    },
    validators: (ctx, books) => {
      // The query is part of the representation (the self link repeats it).
      const parts: (string | number)[] = [ctx.request.search];
      for (const book of books) parts.push(book.id, book.updatedAt.getTime());
      return { etag: digestEtag(parts), lastModified: lastChange(books) };
    },
  });
  const found = conditional({
    policy: publicMinute,
    // The route's `params` codec decoded the id before this runs: a number, here as in the handler.
    load: (ctx: Context<{ readonly id: number }>) => bookStore.get(ctx.params.id),
    validators: (_ctx, book) =>
      book && { etag: versionEtag(`${book.id}-${book.updatedAt.getTime()}`), lastModified: book.updatedAt },
  });
  return [
    defineRoute({
      method: 'GET',
      path: '/books',
      query: { author: text({ maxLength: 200 }) },
      summary: 'List books',
      responses: {
        200: {
          description: 'The books, optionally by one author',
          body: { collection: bookSchema },
          links: { order: linkTo(ORDERS, { description: 'Order one of these books' }) },
          example: {
            data: [
              {
                type: 'books',
                id: '1',
                attributes: { title: 'Invisible Cities', author: 'Italo Calvino' },
                links: { self: '/books/1' },
              },
            ],
            links: { self: '/books?author=Italo%20Calvino', order: '/orders' },
          },
        },
      },
      use: [listed],
      handler: (ctx) => {
        const resources = ctx.var.entity.map((book) => bookResource.toResource(book));
        return json(200, dataDocument(resources, { links: { self: selfLink(ctx) } }));
      },
    }),
    defineRoute({
      ...BOOK,
      summary: 'Get a book',
      params: { id: bookId },
      responses: {
        200: {
          description: 'One book',
          body: { resource: bookSchema },
          example: {
            data: {
              type: 'books',
              id: '3',
              attributes: { title: 'Invisible Cities', author: 'Italo Calvino' },
              links: { self: '/books/3' },
            },
            links: { self: '/books/3' },
          },
        },
        404: { description: 'No such book', body: 'errors' },
      },
      use: [found],
      handler: (ctx) => {
        const book = ctx.var.entity;
        if (book === undefined) throw new ApiError(404, { detail: `No book with id ${ctx.params.id}.` });
        return json(
          200,
          dataDocument(bookResource.toResource(book), { links: { self: targetUrl(BOOK, { id: book.id }) } }),
        );
      },
    }),
  ];
}
