/**
 * Every operation of the zod example (`examples/zod/`), called through the two generated clients of
 * its served document: openapi-fetch with openapi-typescript's `paths` (`#zod-api`), and
 * @hey-api/openapi-ts's SDK (`#zod-sdk/...`, passed in: it is generated at test time).
 * `zod-clients.test.ts` compiles this file with `tsc --strict` first: no cast, `any` or non-null
 * assertion touches response data, so each attribute read exists in the generated types.
 */

import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from '#zod-api';
import { present } from './present.js';

/** Who calls: the server and two callers' `Bearer ...` credentials. */
export interface Callers {
  readonly baseUrl: string;
  readonly alice: string;
  readonly bob: string;
}

/** Calls every operation with openapi-fetch; returns them as `METHOD /path`. */
export async function callWithOpenapiFetch({ baseUrl, alice, bob }: Callers): Promise<string[]> {
  const client = createClient<paths>({ baseUrl });
  const books = present((await client.GET('/books')).data, 'books').data;
  const first = present(books[0], 'first book');
  expect(first.attributes.author).toBe('Ursula K. Le Guin');
  const book = await client.GET('/books/{id}', { params: { path: { id: first.id } } });
  expect(present(book.data, 'book').data.attributes.title).toBe(first.attributes.title);

  const created = await client.POST('/orders', {
    params: { header: { 'Idempotency-Key': '"openapi-fetch-1"' } },
    headers: { Authorization: alice },
    body: { bookId: Number(first.id), quantity: 2 },
  });
  const order = present(created.data, 'created order').data;
  expect(order.attributes).toEqual({ bookId: Number(first.id), quantity: 2 });
  expect(created.response.headers.get('location')).toBe(`/orders/${order.id}`);
  const read = await client.GET('/orders/{id}', {
    params: { path: { id: order.id } },
    headers: { Authorization: alice },
  });
  expect(present(read.data, 'order').data.attributes.quantity).toBe(2);
  const foreign = await client.GET('/orders/{id}', {
    params: { path: { id: order.id } },
    headers: { Authorization: bob },
  });
  expect(foreign.response.status).toBe(404);

  const refused = await client.POST('/orders', {
    params: { header: { 'Idempotency-Key': '"openapi-fetch-2"' } },
    headers: { Authorization: alice },
    body: { bookId: 0, quantity: 2 },
  });
  expect(refused.response.status).toBe(400);
  expect(refused.error).toMatchObject({
    errors: [{ code: 'invalid-field', source: { pointer: '/bookId' } }],
  });

  const description = await client.GET('/openapi.json');
  expect(present(description.data, 'document').openapi).toBe('3.1.0');
  return ['GET /books', 'GET /books/{id}', 'POST /orders', 'GET /orders/{id}', 'GET /openapi.json'];
}

/** The SDK @hey-api/openapi-ts generated, and its client. */
export interface HeyApi {
  readonly sdk: typeof import('#zod-sdk/sdk.gen');
  readonly client: typeof import('#zod-sdk/client.gen')['client'];
}

/** Calls every operation with @hey-api/openapi-ts's SDK; returns them as `METHOD /path`. */
export async function callWithHeyApi(
  { sdk, client }: HeyApi,
  { baseUrl, alice, bob }: Callers,
): Promise<string[]> {
  const as = (credentials: string) => credentials.replace(/^Bearer /, '');
  client.setConfig({ baseUrl, auth: () => as(alice) });
  const books = present((await sdk.getBooks()).data, 'books').data;
  const last = present(books[2], 'third book');
  expect(last.attributes.title).toBe('Invisible Cities');
  const book = await sdk.getBooksById({ path: { id: last.id } });
  expect(present(book.data, 'book').data.attributes.author).toBe('Italo Calvino');

  const created = await sdk.postOrders({
    headers: { 'Idempotency-Key': '"hey-api-1"' },
    body: { bookId: Number(last.id), quantity: 3 },
  });
  const order = present(created.data, 'created order').data;
  expect(order.attributes.quantity).toBe(3);
  const read = await sdk.getOrdersById({ path: { id: order.id } });
  expect(present(read.data, 'order').data.attributes.bookId).toBe(Number(last.id));
  const foreign = await sdk.getOrdersById({ path: { id: order.id }, auth: () => as(bob) });
  expect(foreign.response.status).toBe(404);

  const description = await sdk.getOpenapiJson();
  expect(description.response.status).toBe(200);
  return ['GET /books', 'GET /books/{id}', 'POST /orders', 'GET /orders/{id}', 'GET /openapi.json'];
}
