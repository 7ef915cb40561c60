import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestEtag } from '../../src/caching/index.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { type OpenApiDocument, pathItemOperations, resolveRef } from '../../src/openapi/index.js';
import { fetchClient, nodeClient, type TestClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

describe('the reference app describes itself at GET /openapi.json', () => {
  let client: TestClient;
  let document: OpenApiDocument;
  let etag: string;
  let text: string;

  beforeAll(async () => {
    client = await fetchClient(referenceApp().app);
    const response = await client.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/vnd.oai.openapi+json');
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    etag = response.headers.etag!;
    text = response.text;
    document = JSON.parse(text);
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

  it('shows request and response examples (the linters check each against its schema)', () => {
    const post = document.paths!['/orders']!.post!;
    expect(post.requestBody?.content['application/json']?.example).toEqual({ bookId: 1, quantity: 2 });
    expect(post.requestBody?.content['application/vnd.api+json']?.example).toEqual({
      data: { type: 'orders', attributes: { bookId: 1, quantity: 2 } },
    });
    const book = document.paths!['/books/{id}']!.get!.responses['200']!;
    expect(book.content?.['application/vnd.api+json']?.example).toMatchObject({ data: { type: 'books' } });
  });

  it('declares include and its one value, book, where a response can carry books in included', () => {
    for (const path of ['/orders/{id}', '/users/{id}/orders']) {
      const get = document.paths![path]!.get!;
      const include = get.parameters?.find((p) => p.in === 'query' && p.name === 'include');
      expect(include?.schema, path).toMatchObject({ type: 'array', items: { enum: ['book'] } });
      const body = get.responses['200']!.content?.['application/vnd.api+json']?.schema;
      const schema = resolveRef(document, body) as { properties?: Record<string, unknown> } | undefined;
      expect(JSON.stringify(schema?.properties?.included), path).toContain('Book');
    }
  });

  it('keeps the conventions: the linter finds nothing', () => {
    expect(lintOpenApi(document)).toEqual([]);
  });

  it('lists one spelling per route, and no path parameter matches an empty segment', async () => {
    // A router reading the document (Prism) matched `/api/v1/standards/` to `{standard_id}` = ''.
    const paths = Object.keys(document.paths ?? {});
    expect(paths.filter((p) => p.length > 1 && p.endsWith('/'))).toEqual([]);
    const item = document.paths!['/api/v1/standards']!;
    expect(item.description).toContain('`/api/v1/standards/`');
    const ajv = new Ajv2020({ strict: false });
    for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of pathItemOperations(pathItem)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'path') continue;
          expect(ajv.validate(parameter.schema ?? {}, ''), `${method} ${path} {${parameter.name}}`).toBe(
            false,
          );
        }
      }
    }
    // The other spelling is the same resource, answered the same.
    const token = await bearer('7', 'standards:read');
    const bare = await client.request('GET', '/api/v1/standards', { headers: { authorization: token } });
    const slash = await client.request('GET', '/api/v1/standards/', { headers: { authorization: token } });
    expect([bare.status, slash.status]).toEqual([200, 200]);
    expect(slash.body).toEqual(bare.body);
  });

  it('declares list-valued query parameters in the form generators send on their defaults, which it reads', async () => {
    const list = document.paths!['/api/v1/standards']!.get!;
    const arrays = (list.parameters ?? []).filter((p) => p.in === 'query' && p.schema?.type === 'array');
    expect(arrays.map((p) => p.name).sort()).toEqual(['fields[standards]', 'filter[status]', 'sort']);
    // OpenAPI 3.1's default for a query parameter (Parameter Object, `style`, `explode`), stated.
    for (const p of arrays) expect([p.name, p.style, p.explode]).toEqual([p.name, 'form', true]);
    const token = await bearer('7', 'standards:read standards:write');
    for (const [code, status] of [
      ['LIST-1', 'draft'],
      ['LIST-2', 'published'],
      ['LIST-3', 'retired'],
    ]) {
      const made = await client.request('POST', '/api/v1/standards', {
        headers: {
          authorization: token,
          'content-type': 'application/json',
          'idempotency-key': `list-${code}`,
        },
        body: JSON.stringify({ code, name: `Standard ${code}`, status }),
      });
      expect(made.status).toBe(201);
    }
    const repeated = await client.request(
      'GET',
      '/api/v1/standards?filter%5Bstatus%5D=published&filter%5Bstatus%5D=draft&sort=-code&sort=name',
      { headers: { authorization: token } },
    );
    const joined = await client.request(
      'GET',
      '/api/v1/standards?filter%5Bstatus%5D=published,draft&sort=-code,name',
      {
        headers: { authorization: token },
      },
    );
    expect([repeated.status, joined.status]).toEqual([200, 200]);
    const codes = (body: { data: { attributes: { code: string } }[] }) =>
      body.data.map((s) => s.attributes.code);
    expect(codes(repeated.body)).toEqual(['LIST-2', 'LIST-1']);
    expect(codes(joined.body)).toEqual(codes(repeated.body));
  });

  it('declares what a health probe answers: never limited itself, 429 only for refused tokens', async () => {
    const limited = await nodeClient(referenceApp({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW: '3600' }).app);
    try {
      const probe = document.paths!['/health/live']!.get!;
      expect(Object.keys(probe.responses['200']!.headers ?? {})).not.toContain('RateLimit');
      for (let i = 0; i < 5; i++) {
        const live = await limited.request('GET', '/health/live');
        expect(live.status).toBe(200);
        expect(live.headers.ratelimit).toBeUndefined();
      }
      expect((await limited.request('GET', '/books')).status).toBe(200);
      expect((await limited.request('GET', '/books')).status).toBe(200);
      expect((await limited.request('GET', '/books')).status).toBe(429);
      // Refused credentials are counted on every route (authenticate's failureLimit), probes too:
      // the 429 a probe declares is that one, with the limiter's headers on the refusals.
      expect(Object.keys(probe.responses)).toContain('429');
      expect(Object.keys(probe.responses['401']!.headers ?? {})).toContain('RateLimit');
      const refused = await limited.request('GET', '/health/live', {
        headers: { authorization: 'Bearer not.a.token' },
      });
      expect(refused.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('sends the same bytes every time, under the ETag of those bytes', async () => {
    expect(etag).toBe(digestEtag([text]));
    const again = await client.request('GET', '/openapi.json');
    expect(again.text).toBe(text);
    expect(again.headers.etag).toBe(etag);
    const head = await client.request('HEAD', '/openapi.json');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(etag);
    expect(head.text).toBe('');
  });

  it('is cacheable: 304 for its own ETag', async () => {
    const again = await client.request('GET', '/openapi.json', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });
});
