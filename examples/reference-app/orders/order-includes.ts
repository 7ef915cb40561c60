import { queryList } from 'rest-conventions/validation';
import type { Book, BookStore } from '../books/book-store.js';
import { bookResource } from '../books/books-routes.js';
import type { RequestScope } from '../database/request-scope.js';
import type { Order } from './order-store.js';

/**
 * The related resources a reader of orders may ask for with `include` (JSON:API 1.1 "Inclusion of
 * Related Resources"): their book. Any other path is a 400 naming the parameter
 * (`source.parameter: include`). One order (`GET /orders/{id}`) and a user's orders
 * (`GET /users/{id}/orders`) share it, so both declare the same values.
 */
export const ORDER_INCLUDES = queryList(['book']);

/** What the `include` parameter decoded to; absent when the request did not ask. */
export type OrderIncludes = readonly 'book'[] | undefined;

/**
 * The books the orders' `include` asks for: each distinct book once, in the orders' order (JSON:API
 * 1.1: a compound document never holds a resource twice). A book the store no longer has is left
 * out, never invented. `undefined` when nothing was asked for, so the document has no `included`.
 * Books are public, so every book returned is one the caller may see.
 */
export async function includedBooks(
  orders: readonly Order[],
  include: OrderIncludes,
  books: BookStore,
  request: RequestScope,
): Promise<readonly Book[] | undefined> {
  if (include === undefined) return undefined;
  if (!include.includes('book')) return [];
  const found: Book[] = [];
  // One read per distinct book, one after another: a page holds at most 100 orders, and a PostgreSQL
  // store keeps the request to one pooled connection at a time.
  for (const id of new Set(orders.map((order) => order.bookId))) {
    const book = await books.get(id, request);
    if (book !== undefined) found.push(book);
  }
  return found;
}

/** The document's `included` member for {@link includedBooks}' answer: none when nothing was asked. */
export function includedMember(books: readonly Book[] | undefined) {
  return books === undefined ? {} : { included: books.map((book) => bookResource.toResource(book)) };
}
