import type { App } from 'rest-conventions';
import { conditional, digestEtag, versionEtag } from 'rest-conventions/caching';
import { type Context, contextKey, json } from 'rest-conventions/core';
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
const LIST_QUERY = { author: text({ maxLength: 200 }) };

// What a request loaded, shared by the route's validators and its handler: one store call each.
const LISTED = contextKey<Promise<readonly Book[]>>('books listed for this request');
const FOUND = contextKey<Promise<Book | undefined>>('book named by the path');

function lastChange(books: readonly Book[]): number | undefined {
  let latest: number | undefined;
  for (const book of books) latest = Math.max(latest ?? 0, book.updatedAt.getTime());
  return latest;
}

/** `GET /books?author=` and `GET /books/{id}`: public, read-only, cacheable for a minute. */
export class BooksRoutes {
  static readonly inject = ['bookStore'] as const;

  constructor(private readonly books: BookStore) {}

  private listed(ctx: Context): Promise<readonly Book[]> {
    let books = ctx.get(LISTED);
    if (books === undefined) {
      const { author } = decodeQuery(ctx, LIST_QUERY);
      books = this.books.list(author === undefined ? {} : { author });
      ctx.set(LISTED, books);
    }
    return books;
  }

  private found(ctx: Context<{ readonly id: string }>): Promise<Book | undefined> {
    let book = ctx.get(FOUND);
    if (book === undefined) {
      book = this.books.get(numericId(ctx.params.id, 'book'));
      ctx.set(FOUND, book);
    }
    return book;
  }

  register(app: App): void {
    app.route({
      method: 'GET',
      path: '/books',
      // Validators from the listed records and the query (the self link repeats it): a 304 is
      // answered before the document is built, and nothing is hashed but ids and versions.
      use: [
        conditional({
          policy: publicMinute,
          validators: async (ctx) => {
            const books = await this.listed(ctx);
            const parts: (string | number)[] = [ctx.request.search];
            for (const book of books) parts.push(book.id, book.updatedAt.getTime());
            return { etag: digestEtag(parts), lastModified: lastChange(books) };
          },
        }),
      ],
      handler: async (ctx) => {
        const books = await this.listed(ctx);
        const resources = books.map((book) => bookResource.toResource(book));
        return json(200, dataDocument(resources, { links: { self: selfLink(ctx) } }));
      },
    });
    app.route({
      method: 'GET',
      path: '/books/{id}',
      // Validators from the record: a 304 is answered before the document is built.
      use: [
        conditional({
          policy: publicMinute,
          validators: async (ctx) => {
            const book = await this.found(ctx);
            return (
              book && {
                etag: versionEtag(`${book.id}-${book.updatedAt.getTime()}`),
                lastModified: book.updatedAt,
              }
            );
          },
        }),
      ],
      handler: async (ctx) => {
        const book = await this.found(ctx);
        if (book === undefined) throw new ApiError(404, { detail: `No book with id ${ctx.params.id}.` });
        return json(
          200,
          dataDocument(bookResource.toResource(book), { links: { self: `/books/${book.id}` } }),
        );
      },
    });
  }
}
