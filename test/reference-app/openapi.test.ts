import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintOpenApi } from '../../src/lint/index.js';
import { type OpenApiDocument, resolveRef } from '../../src/openapi/index.js';
import { fetchClient, type TestClient } from '../support/clients.js';
import { referenceApp } from '../support/reference-app.js';

describe('the reference app describes itself at GET /openapi.json', () => {
  let client: TestClient;
  let document: OpenApiDocument;
  let etag: string;

  beforeAll(async () => {
    client = await fetchClient(referenceApp().app);
    const response = await client.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/vnd.oai.openapi+json');
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    etag = response.headers.etag!;
    document = JSON.parse(response.text);
  });
  afterAll(() => client.close());

  it('is a valid OpenAPI 3.1 document, for an independent validator', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('lists every route the app registered, with its parameters', () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'GET /books',
      'GET /books/{id}',
      'POST /orders',
      'PATCH /orders/{id}',
      'DELETE /orders/{id}',
      'GET /users/{id}',
      'GET /v1/users/{id}',
      'GET /v2/users/{id}',
      'GET /users/{id}/orders/{order_id}',
      'POST /api/v1/standards',
      'GET /openapi.json',
    ]) {
      expect(operations).toContain(expected);
    }
  });

  it('says what the conventions add: validators, keys, quotas, security, deprecation', () => {
    const post = document.paths!['/orders']!.post!;
    expect(post.parameters?.map((p) => p.name)).toContain('Idempotency-Key');
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '409', '413', '415', '422', '429']),
    );
    expect(post.security).toEqual([{ bearer: [] }]);
    const patch = document.paths!['/orders/{id}']!.patch!;
    expect(patch.parameters?.find((p) => p.name === 'If-Match')?.required).toBe(true);
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['412', '428']));
    const book = document.paths!['/books/{id}']!.get!;
    expect(Object.keys(book.responses['200']!.headers ?? {})).toEqual(
      expect.arrayContaining(['ETag', 'Cache-Control', 'RateLimit']),
    );
    expect(resolveRef(document, book.responses['429']!.headers?.['Retry-After'])?.required).toBe(true);
    expect(document.paths!['/v1/users/{id}']!.get!.deprecated).toBe(true);
    expect(document.paths!['/v2/users/{id}']!.get!.deprecated).toBeUndefined();
    expect(Object.keys(document.paths!['/v1/users/{id}']!.get!.responses['200']!.headers ?? {})).toEqual(
      expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
    );
    const standards = document.paths!['/api/v1/standards']!.post!;
    expect(standards.security).toEqual([{ bearer: ['standards:write'] }]);
    expect(Object.keys(standards.responses)).toContain('403');
  });

  it('keeps the conventions: the linter finds nothing', () => {
    expect(lintOpenApi(document)).toEqual([]);
  });

  it('is cacheable: 304 for its own ETag', async () => {
    const again = await client.request('GET', '/openapi.json', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });
});
