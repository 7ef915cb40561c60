/**
 * Every operation of the reference app, called through openapi-fetch with the types openapi-typescript
 * generated from the served document (`#reference-api`, written by `typed-client.test.ts` into a
 * temporary directory). The test compiles this file with `tsc --strict` before running it: no cast,
 * `any` or non-null assertion touches response data, so each attribute read below exists in the
 * generated types with the type the assertion compares.
 */

import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from '#reference-api';
import { present } from './present.js';

export interface Callers {
  readonly baseUrl: string;
  /** `Bearer ...` for user 1, user 2, and a token with `standards:read standards:write`. */
  readonly user1: string;
  readonly user2: string;
  readonly editor: string;
}

/** Calls every operation; returns the operations called, as `METHOD /path`. */
export async function callEveryOperation({ baseUrl, user1, user2, editor }: Callers): Promise<string[]> {
  // openapi-fetch on its defaults: list-valued query parameters repeated (`form`, `explode: true`).
  const client = createClient<paths>({ baseUrl });
  const called: string[] = [];
  const as = (token: string) => ({ Authorization: token });

  const live = await client.GET('/health/live');
  expect(present(live.data, 'live').meta).toEqual({ status: 'pass' });
  const ready = await client.GET('/health/ready');
  expect(present(ready.data, 'ready').meta).toMatchObject({ status: 'pass' });
  called.push('GET /health/live', 'GET /health/ready');

  const books = await client.GET('/books', { params: { query: { author: 'Italo Calvino' } } });
  const listed = present(books.data, 'books').data;
  expect(listed.length).toBeGreaterThan(0);
  for (const book of listed) expect(book.attributes.author).toBe('Italo Calvino');
  const first = present(listed[0], 'first book');
  const book = await client.GET('/books/{id}', { params: { path: { id: first.id } } });
  expect(present(book.data, 'book').data.attributes.title).toBe(first.attributes.title);
  called.push('GET /books', 'GET /books/{id}');

  const created = await client.POST('/orders', {
    headers: as(user1),
    body: { bookId: Number(first.id), quantity: 2 },
  });
  const order = present(created.data, 'created order').data;
  expect(order.attributes.quantity).toBe(2);
  expect(order.relationships?.book?.data).toEqual({ type: 'books', id: first.id });
  expect(created.response.headers.get('location')).toBe(`/orders/${order.id}`);
  const read = await client.GET('/orders/{id}', {
    params: { path: { id: order.id } },
    headers: as(user1),
  });
  expect(present(read.data, 'order').data.attributes.bookId).toBe(Number(first.id));
  const etag = present(read.response.headers.get('etag') ?? undefined, 'order ETag');
  const changed = await client.PATCH('/orders/{id}', {
    params: { path: { id: order.id }, header: { 'If-Match': etag } },
    headers: as(user1),
    body: { quantity: 3 },
  });
  expect(present(changed.data, 'changed order').data.attributes.quantity).toBe(3);
  called.push('POST /orders', 'GET /orders/{id}', 'PATCH /orders/{id}');
  const paid = await client.POST('/orders/{id}/payments', {
    params: { path: { id: order.id }, query: { discount: 'WELCOME10' } },
    headers: as(user1),
  });
  const payment = present(paid.data, 'payment').data;
  expect(payment.attributes.discount).toBe('WELCOME10');
  const paymentRead = await client.GET('/orders/{id}/payments/{payment_id}', {
    params: { path: { id: order.id, payment_id: payment.id } },
    headers: as(user1),
  });
  expect(present(paymentRead.data, 'payment read').data.id).toBe(payment.id);
  called.push('POST /orders/{id}/payments', 'GET /orders/{id}/payments/{payment_id}');

  for (const path of ['/users/{id}', '/v1/users/{id}', '/v2/users/{id}'] as const) {
    const user = await client.GET(path, { params: { path: { id: '1' } }, headers: as(user1) });
    const attributes = present(user.data, path).data.attributes;
    if (path === '/v2/users/{id}') expect(typeof attributes.givenName).toBe('string');
    else expect(typeof attributes.name).toBe('string');
    expect(attributes.email).toContain('@');
    called.push(`GET ${path}`);
  }
  const page = await client.GET('/users/{id}/orders', {
    params: { path: { id: '1' }, query: { 'page[size]': 5, 'page[number]': 1 } },
    headers: as(user1),
  });
  const mine = present(page.data, 'user orders').data;
  expect(mine.map((o) => o.id)).toContain(order.id);
  const nested = await client.GET('/users/{id}/orders/{order_id}', {
    params: { path: { id: '1', order_id: order.id } },
    headers: as(user1),
  });
  expect(present(nested.data, 'nested order').data.attributes.quantity).toBe(3);
  const accountType = await client.GET('/users/{id}/account-type', {
    params: { path: { id: '1' } },
    headers: as(user1),
  });
  expect(['standard', 'premium']).toContain(present(accountType.data, 'account type').data.attributes.name);
  called.push('GET /users/{id}/orders', 'GET /users/{id}/orders/{order_id}', 'GET /users/{id}/account-type');

  const gone = await client.DELETE('/orders/{id}', {
    params: { path: { id: order.id } },
    headers: as(user1),
  });
  expect(gone.response.status).toBe(204);
  const hidden = await client.GET('/orders/{id}', {
    params: { path: { id: order.id } },
    headers: as(user2),
  });
  expect(hidden.response.status).toBe(404);
  expect(present(hidden.error, 'the 404').errors?.[0]?.status).toBe('404');
  called.push('DELETE /orders/{id}');

  const standard = await client.POST('/api/v1/standards', {
    params: { header: { 'Idempotency-Key': `typed-${Date.now()}` } },
    headers: as(editor),
    body: { code: 'RFC-9110', name: 'HTTP Semantics', status: 'published' },
  });
  const made = present(standard.data, 'created standard').data;
  expect(made.attributes.code).toBe('RFC-9110');
  expect(typeof made.attributes.publishedAt).toBe('string');
  const standards = await client.GET('/api/v1/standards', {
    params: {
      query: {
        sort: ['-code', 'name'],
        'filter[status]': ['published', 'draft'],
        'fields[standards]': ['code', 'name'],
      },
    },
    headers: as(editor),
  });
  const codes = present(standards.data, 'standards').data.map((s) => s.attributes.code);
  expect(codes).toContain('RFC-9110');
  const one = await client.GET('/api/v1/standards/{standard_id}', {
    params: { path: { standard_id: made.id } },
    headers: as(editor),
  });
  expect(present(one.data, 'standard').data.attributes.name).toBe('HTTP Semantics');
  const standardTag = present(one.response.headers.get('etag') ?? undefined, 'standard ETag');
  const renamed = await client.PATCH('/api/v1/standards/{standard_id}', {
    params: { path: { standard_id: made.id }, header: { 'If-Match': standardTag } },
    headers: as(editor),
    body: { name: 'HTTP Semantics (2022)' },
  });
  expect(present(renamed.data, 'renamed').data.attributes.name).toBe('HTTP Semantics (2022)');
  // openapi-typescript types no QUERY operation: the query itself goes out as plain fetch, and its
  // Location (the query as a resource) is read by the typed GET.
  const queried = await fetch(`${baseUrl}/api/v1/standards`, {
    method: 'QUERY',
    headers: { authorization: editor, 'content-type': 'application/json' },
    body: JSON.stringify({ status: ['published'], codePrefix: ['RFC-'] }),
  });
  expect(queried.status).toBe(200);
  const location = present(queried.headers.get('location') ?? undefined, 'QUERY Location');
  const again = await client.GET('/api/v1/standard-queries/{query_id}', {
    params: { path: { query_id: location.split('/').pop() ?? '' } },
    headers: as(editor),
  });
  expect(present(again.data, 'query results').data.map((s) => s.attributes.code)).toContain('RFC-9110');
  const removed = await client.DELETE('/api/v1/standards/{standard_id}', {
    params: { path: { standard_id: made.id } },
    headers: as(editor),
  });
  expect(removed.response.status).toBe(204);
  called.push(
    'POST /api/v1/standards',
    'GET /api/v1/standards',
    'GET /api/v1/standards/{standard_id}',
    'GET /api/v1/standard-queries/{query_id}',
    'PATCH /api/v1/standards/{standard_id}',
    'DELETE /api/v1/standards/{standard_id}',
  );

  const description = await client.GET('/openapi.json');
  expect(present(description.data, 'document').openapi).toBe('3.1.0');
  const docs = await client.GET('/docs', { parseAs: 'text' });
  expect(present(docs.data, 'page')).toContain('<html');
  const asset = await client.GET('/docs/{asset}', {
    params: { path: { asset: 'swagger-ui.css' } },
    parseAs: 'text',
  });
  expect(asset.response.status).toBe(200);
  called.push('GET /openapi.json', 'GET /docs', 'GET /docs/{asset}');
  return called;
}
