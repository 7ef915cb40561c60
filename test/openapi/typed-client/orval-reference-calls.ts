/**
 * Every operation of the reference app, called through the functions orval generates on its default
 * settings (the axios client) from the served document (`#orval-reference`, written by
 * `orval-client.test.ts`). The test compiles this file with `tsc --strict` before running it, and it
 * holds no cast, `any` or non-null assertion.
 *
 * orval's defaults leave header parameters out of the functions' signatures (its `output.headers`
 * option is off unless set): `Idempotency-Key` and `If-Match` go in each call's request options, as
 * `Authorization` does. axios writes `Content-Type: application/json` for an object body by itself.
 * axios sends a list as `name[]=a&name[]=b`, which the API reads as the list it is.
 */

import type { AxiosRequestConfig } from 'axios';
import { expect } from 'vitest';
import type * as Generated from '#orval-reference';

export interface Callers {
  readonly baseUrl: string;
  /** `Bearer ...` for user 1, user 2, and a token with `standards:read standards:write`. */
  readonly user1: string;
  readonly user2: string;
  readonly editor: string;
}

/** Calls every operation; returns the operations called, as `METHOD /path`. */
export async function callEveryOperation(
  api: typeof Generated,
  { baseUrl, user1, user2, editor }: Callers,
): Promise<string[]> {
  const called: string[] = [];
  const as = (token?: string, headers: Record<string, string> = {}): AxiosRequestConfig => ({
    baseURL: baseUrl,
    headers: token === undefined ? headers : { Authorization: token, ...headers },
  });

  expect((await api.getHealthLive(as())).data.meta).toEqual({ status: 'pass' });
  expect((await api.getHealthReady(as())).data.meta).toMatchObject({ status: 'pass' });
  called.push('GET /health/live', 'GET /health/ready');

  const books = await api.getBooks({ author: 'Italo Calvino' }, as());
  const listed = books.data.data;
  expect(listed.length).toBeGreaterThan(0);
  for (const book of listed) expect(book.attributes.author).toBe('Italo Calvino');
  const [first] = listed;
  if (first === undefined) throw new Error('no book');
  const book = await api.getBooksById(first.id, as());
  expect(book.data.data.attributes.title).toBe(first.attributes.title);
  const bookTag = book.headers.etag;
  expect(typeof bookTag).toBe('string');
  const unchanged = await api.getBooksById(first.id, {
    ...as(undefined, { 'If-None-Match': String(bookTag) }),
    validateStatus: (status) => status === 304,
  });
  expect(unchanged.status).toBe(304);
  called.push('GET /books', 'GET /books/{id}');

  const created = await api.postOrders(
    { bookId: Number(first.id), quantity: 2 },
    as(user1, { 'Idempotency-Key': `orval-order-${Date.now()}` }),
  );
  expect(created.status).toBe(201);
  const order = created.data.data;
  expect(order.attributes.quantity).toBe(2);
  expect(order.relationships?.book?.data).toEqual({ type: 'books', id: first.id });
  expect(created.headers.location).toBe(`/orders/${order.id}`);
  const read = await api.getOrdersById(order.id, undefined, as(user1));
  expect(read.data.data.attributes.bookId).toBe(Number(first.id));
  const etag = String(read.headers.etag);
  const stale = await api.patchOrdersById(
    order.id,
    { quantity: 5 },
    {
      ...as(user1, { 'If-Match': '"not-the-current-tag"' }),
      validateStatus: (status) => status === 412,
    },
  );
  expect(stale.status).toBe(412);
  const changed = await api.patchOrdersById(order.id, { quantity: 3 }, as(user1, { 'If-Match': etag }));
  expect(changed.data.data.attributes.quantity).toBe(3);
  called.push('POST /orders', 'GET /orders/{id}', 'PATCH /orders/{id}');
  const paid = await api.postOrdersByIdPayments(order.id, { discount: 'WELCOME10' }, as(user1));
  expect(paid.data.data.attributes.discount).toBe('WELCOME10');
  const paymentRead = await api.getOrdersByIdPaymentsByPaymentId(order.id, paid.data.data.id, as(user1));
  expect(paymentRead.data.data.id).toBe(paid.data.data.id);
  called.push('POST /orders/{id}/payments', 'GET /orders/{id}/payments/{payment_id}');

  expect(typeof (await api.getUsersById('1', as(user1))).data.data.attributes.name).toBe('string');
  expect(typeof (await api.getV1UsersById('1', as(user1))).data.data.attributes.name).toBe('string');
  expect(typeof (await api.getV2UsersById('1', as(user1))).data.data.attributes.givenName).toBe('string');
  called.push('GET /users/{id}', 'GET /v1/users/{id}', 'GET /v2/users/{id}');
  const page = await api.getUsersByIdOrders('1', { 'page[size]': 5, 'page[number]': 1 }, as(user1));
  expect(page.data.data.map((o) => o.id)).toContain(order.id);
  const nested = await api.getUsersByIdOrdersByOrderId('1', order.id, as(user1));
  expect(nested.data.data.attributes.quantity).toBe(3);
  const accountType = await api.getUsersByIdAccountType('1', as(user1));
  expect(['standard', 'premium']).toContain(accountType.data.data.attributes.name);
  called.push('GET /users/{id}/orders', 'GET /users/{id}/orders/{order_id}', 'GET /users/{id}/account-type');

  const current = String((await api.getOrdersById(order.id, undefined, as(user1))).headers.etag);
  const gone = await api.deleteOrdersById(order.id, as(user1, { 'If-Match': current }));
  expect(gone.status).toBe(204);
  const hidden = await api.getOrdersById(order.id, undefined, {
    ...as(user2),
    validateStatus: (status) => status === 404,
  });
  expect(hidden.status).toBe(404);
  called.push('DELETE /orders/{id}');

  const key = `orval-standard-${Date.now()}`;
  const body = { code: 'RFC-9110', name: 'HTTP Semantics', status: 'published' } as const;
  const standard = await api.postApiV1Standards(body, as(editor, { 'Idempotency-Key': key }));
  const made = standard.data.data;
  expect(made.attributes.code).toBe('RFC-9110');
  // The same key and body again: the first answer, not a second standard.
  const retried = await api.postApiV1Standards(body, as(editor, { 'Idempotency-Key': key }));
  expect(retried.data.data.id).toBe(made.id);
  const standards = await api.getApiV1Standards(
    {
      sort: ['-code', 'name'],
      'filter[status]': ['published', 'draft'],
      'fields[standards]': ['code', 'name'],
    },
    as(editor),
  );
  expect(standards.data.data.map((s) => s.attributes.code)).toEqual(['RFC-9110']);
  const drafts = await api.getApiV1Standards({ 'filter[status]': ['draft'] }, as(editor));
  expect(drafts.data.data).toEqual([]);
  const one = await api.getApiV1StandardsByStandardId(made.id, as(editor));
  expect(one.data.data.attributes.name).toBe('HTTP Semantics');
  const renamed = await api.patchApiV1StandardsByStandardId(
    made.id,
    { name: 'HTTP Semantics (2022)' },
    as(editor, { 'If-Match': String(one.headers.etag) }),
  );
  expect(renamed.data.data.attributes.name).toBe('HTTP Semantics (2022)');
  // orval writes no function for a QUERY (OpenAPI 3.1 declares it under `x-oai-additionalOperations`):
  // the query goes out as plain fetch, and its Location is read by the generated GET.
  const queried = await fetch(`${baseUrl}/api/v1/standards`, {
    method: 'QUERY',
    headers: { authorization: editor, 'content-type': 'application/json' },
    body: JSON.stringify({ status: ['published'], codePrefix: ['RFC-'] }),
  });
  expect(queried.status).toBe(200);
  const queryId = (queried.headers.get('location') ?? '').split('/').pop() ?? '';
  const again = await api.getApiV1StandardQueriesByQueryId(queryId, as(editor));
  expect(again.data.data.map((s) => s.attributes.code)).toContain('RFC-9110');
  const latest = String((await api.getApiV1StandardsByStandardId(made.id, as(editor))).headers.etag);
  const removed = await api.deleteApiV1StandardsByStandardId(made.id, as(editor, { 'If-Match': latest }));
  expect(removed.status).toBe(204);
  called.push(
    'POST /api/v1/standards',
    'GET /api/v1/standards',
    'GET /api/v1/standards/{standard_id}',
    'GET /api/v1/standard-queries/{query_id}',
    'PATCH /api/v1/standards/{standard_id}',
    'DELETE /api/v1/standards/{standard_id}',
  );

  const description = await api.getOpenapiJson(as());
  expect(description.data).toMatchObject({ openapi: '3.1.0' });
  expect((await api.getDocs(as())).data).toContain('<html');
  expect((await api.getDocsByAsset('swagger-ui.css', as())).status).toBe(200);
  called.push('GET /openapi.json', 'GET /docs', 'GET /docs/{asset}');
  return called;
}
