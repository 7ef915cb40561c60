import type { App } from 'rest-conventions';
import { json } from 'rest-conventions/core';
import { dataDocument, defineResourceType, selfLink } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { decodeQuery, text } from 'rest-conventions/validation';
import type { Book, BookStore } from './book-store.js';

/** How a book is shown: `title` and `author` only. */
export const bookResource = defineResourceType<Book, 'title' | 'author'>({
  type: 'books',
  id: (book) => book.id,
  attributes: ['title', 'author'],
  links: (book) => ({ self: `/books/${book.id}` }),
});

const ID = /^[1-9]\d{0,15}$/;

/** The numeric id in a path, or 404: a malformed id names no resource. */
export function numericId(raw: string, what: string): number {
  if (!ID.test(raw))
    throw new ApiError(404, { detail: `No ${what} with id ${JSON.stringify(raw.slice(0, 40))}.` });
  return Number(raw);
}

/** `GET /books?author=` and `GET /books/{id}`: public, read-only. */
export class BooksRoutes {
  static readonly inject = ['bookStore'] as const;

  constructor(private readonly books: BookStore) {}

  register(app: App): void {
    app.route({
      method: 'GET',
      path: '/books',
      handler: async (ctx) => {
        const { author } = decodeQuery(ctx, { author: text({ maxLength: 200 }) });
        const books = await this.books.list(author === undefined ? {} : { author });
        return json(
          200,
          dataDocument(
            books.map((book) => bookResource.toResource(book)),
            { links: { self: selfLink(ctx) } },
          ),
        );
      },
    });
    app.route({
      method: 'GET',
      path: '/books/{id}',
      handler: async (ctx) => {
        const book = await this.books.get(numericId(ctx.params.id, 'book'));
        if (book === undefined) throw new ApiError(404, { detail: `No book with id ${ctx.params.id}.` });
        return json(
          200,
          dataDocument(bookResource.toResource(book), { links: { self: `/books/${book.id}` } }),
        );
      },
    });
  }
}
