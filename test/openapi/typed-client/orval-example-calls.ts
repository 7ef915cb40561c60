/**
 * The four operations of a framework example (`examples/<framework>/server.ts`), called through the
 * functions orval generates on its default settings from the example's own document
 * (`#orval-example`, written by `orval-client.test.ts`). Compiled with `tsc --strict` before it runs;
 * headers go in each call's request options, as orval's defaults leave them out of the signatures.
 * An example's document describes its answers as generic JSON:API documents (`data` may be null,
 * `attributes` absent), so each read is narrowed by {@link present}, never cast.
 */

import type { AxiosRequestConfig } from 'axios';
import { expect } from 'vitest';
import type * as Generated from '#orval-example';

/** The value, or a failure naming what was missing (narrows without a cast). */
function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what}: absent`);
  return value;
}

/** Calls every operation as `token`'s user; returns the operations called, as `METHOD /path`. */
export async function callEveryOperation(
  api: typeof Generated,
  baseUrl: string,
  token: string,
): Promise<string[]> {
  const as = (headers: Record<string, string> = {}): AxiosRequestConfig => ({
    baseURL: baseUrl,
    headers: { Authorization: token, ...headers },
  });
  const books = await api.getBooks(as());
  const first = present(books.data.data[0], 'first book');
  const book = await api.getBooksById(first.id, as());
  const title = present(first.attributes, 'listed attributes').title;
  expect(present(present(book.data.data, 'book').attributes, 'book attributes').title).toBe(title);
  const unchanged = await api.getBooksById(first.id, {
    ...as({ 'If-None-Match': String(book.headers.etag) }),
    validateStatus: (status) => status === 304,
  });
  expect(unchanged.status).toBe(304);
  const key = `orval-example-${Date.now()}`;
  const created = await api.postOrders(
    { bookId: Number(first.id), quantity: 2 },
    as({ 'Idempotency-Key': key }),
  );
  expect(created.status).toBe(201);
  const retried = await api.postOrders(
    { bookId: Number(first.id), quantity: 2 },
    as({ 'Idempotency-Key': key }),
  );
  const id = present(created.data.data, 'created order').id;
  expect(present(retried.data.data, 'retried order').id).toBe(id);
  const order = await api.getOrdersById(id, as());
  expect(present(present(order.data.data, 'order').attributes, 'order attributes').quantity).toBe(2);
  return ['GET /books', 'GET /books/{id}', 'POST /orders', 'GET /orders/{id}'];
}
