import type { App } from 'rest-conventions';
import { conditional, formatHttpDate, versionEtag } from 'rest-conventions/caching';
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

const publicMinute = { scope: 'public', maxAge: 60 } as const;

function lastChange(books: readonly Book[]): number {
  let latest = 0;
  for (const book of books) latest = Math.max(latest, book.updatedAt.getTime());
  return latest;
}

/** `GET /books?author=` and `GET /books/{id}`: public, read-only, cacheable for a minute. */
export class BooksRoutes {
  static readonly inject = ['bookStore'] as const;

  constructor(private readonly books: BookStore) {}

  private async validators(rawId: string) {
    const book = ID.test(rawId) ? await this.books.get(Number(rawId)) : undefined;
    return (
      book && { etag: versionEtag(`${book.id}-${book.updatedAt.getTime()}`), lastModified: book.updatedAt }
    );
  }

  register(app: App): void {
    app.route({
      method: 'GET',
      path: '/books',
      // The ETag is hashed from the body: the list depends on the query.
      use: [conditional({ policy: publicMinute })],
      handler: async (ctx) => {
        const { author } = decodeQuery(ctx, { author: text({ maxLength: 200 }) });
        const books = await this.books.list(author === undefined ? {} : { author });
        const resources = books.map((book) => bookResource.toResource(book));
        // An empty list has no last change to report (and no 1970 date).
        const headers: Record<string, string> =
          books.length === 0 ? {} : { 'last-modified': formatHttpDate(lastChange(books)) };
        return json(200, dataDocument(resources, { links: { self: selfLink(ctx) } }), headers);
      },
    });
    app.route({
      method: 'GET',
      path: '/books/{id}',
      // Validators from the record: a 304 is answered before the document is built.
      use: [conditional({ policy: publicMinute, validators: (ctx) => this.validators(ctx.params.id) })],
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
