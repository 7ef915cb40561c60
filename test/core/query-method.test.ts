import { fc, test } from '@fast-check/vitest';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { cacheControlDefault } from '../../src/caching/index.js';
import { acceptQueryField, acceptQueryTypes, decideQueryContent } from '../../src/http/accept-query.js';
import { isSafeMethod, nonIdempotentMethods, takesContent } from '../../src/http/methods.js';
import { isToken } from '../../src/http/structured-fields.js';
import { idempotency, memoryIdempotencyStore } from '../../src/idempotency/index.js';
import * as rc from '../../src/index.js';
import { send } from './send.js';

const NAMES = ['ada', 'grace', 'alan', 'edsger'];

/** An app with one QUERY route: names starting with a prefix, its results ETagged and cached. */
function queryApp() {
  const app = rc.createApp({
    use: [cacheControlDefault(), idempotency({ store: memoryIdempotencyStore(), required: true })],
  });
  app.route({
    method: 'QUERY',
    path: '/people',
    body: { codec: rc.strictObject({ prefix: rc.text({ maxLength: 20 }) }), type: 'people' },
    use: [rc.conditional({ policy: { scope: 'public', maxAge: 60 } })],
    handler: (ctx) =>
      rc.json(200, {
        data: NAMES.filter((n) => n.startsWith(ctx.body.prefix)).map((id) => ({ type: 'people', id })),
      }),
  });
  app.route({ method: 'GET', path: '/people', handler: () => rc.json(200, { data: [] }) });
  return app;
}

const JSON_CT = { 'content-type': 'application/json' };

describe('QUERY (RFC 10008)', () => {
  it('is safe, idempotent and takes content', () => {
    expect(isSafeMethod('QUERY')).toBe(true);
    expect(takesContent('QUERY')).toBe(true);
    expect(nonIdempotentMethods()).not.toContain('QUERY');
  });

  it('answers 200 with Accept-Query, an ETag and the cache policy; Allow lists it', async () => {
    const app = queryApp();
    const answer = await send(app, 'QUERY', '/people', { headers: JSON_CT, body: '{"prefix":"a"}' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((r: { id: string }) => r.id)).toEqual(['ada', 'alan']);
    expect(answer.headers['accept-query']).toBe('application/json');
    expect(answer.headers.etag).toMatch(/^"/);
    expect(answer.headers['cache-control']).toBe('public, max-age=60');
    const options = await send(app, 'OPTIONS', '/people');
    expect(options.headers.allow).toBe('GET, HEAD, OPTIONS, QUERY');
    const refused = await send(app, 'DELETE', '/people');
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS, QUERY');
  });

  it('its ETag gives 304 for the same query, and 200 for another (section 2.6)', async () => {
    const app = queryApp();
    const first = await send(app, 'QUERY', '/people', { headers: JSON_CT, body: '{"prefix":"a"}' });
    const again = await send(app, 'QUERY', '/people', {
      headers: { ...JSON_CT, 'if-none-match': first.headers.etag! },
      body: '{"prefix":"a"}',
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['accept-query']).toBe('application/json');
    const other = await send(app, 'QUERY', '/people', {
      headers: { ...JSON_CT, 'if-none-match': first.headers.etag! },
      body: '{"prefix":"g"}',
    });
    expect(other.status).toBe(200);
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it('no Content-Type is a 400, another media type a 415, both with Accept-Query (section 2.1)', async () => {
    const app = queryApp();
    const missing = await send(app, 'QUERY', '/people', { body: '{"prefix":"a"}' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({
      code: 'missing-content-type',
      source: { header: 'Content-Type' },
    });
    expect(missing.headers['accept-query']).toBe('application/json');
    for (const type of ['text/plain', 'application/vnd.api+json', 'application/x-www-form-urlencoded']) {
      const wrong = await send(app, 'QUERY', '/people', {
        headers: { 'content-type': type },
        body: 'prefix=a',
      });
      expect(wrong.status, type).toBe(415);
      expect(wrong.body.errors[0].code).toBe('unsupported-media-type');
      expect(wrong.headers['accept-query']).toBe('application/json');
    }
  });

  it('content that is not JSON, or that the codec refuses, is a 400 naming the field', async () => {
    const app = queryApp();
    expect((await send(app, 'QUERY', '/people', { headers: JSON_CT, body: '{' })).status).toBe(400);
    const refused = await send(app, 'QUERY', '/people', { headers: JSON_CT, body: '{"prefix":1}' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].source.pointer).toBe('/prefix');
  });

  it('needs no Idempotency-Key where POST does', async () => {
    const app = queryApp();
    app.route({ method: 'POST', path: '/people', handler: () => rc.json(201, { data: null }) });
    expect((await send(app, 'POST', '/people', { headers: JSON_CT, body: '{}' })).status).toBe(400);
    expect((await send(app, 'QUERY', '/people', { headers: JSON_CT, body: '{"prefix":"e"}' })).status).toBe(
      200,
    );
  });

  it('a QUERY route declares its body', () => {
    const app = rc.createApp();
    expect(() =>
      app.route({ method: 'QUERY', path: '/people', handler: () => rc.json(200, { data: [] }) }),
    ).toThrow(/QUERY route declares its body/);
  });
});

describe('Accept-Query is a Structured Field List of the media types (RFC 10008 section 3)', () => {
  const typeName = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,12}$/);
  test.prop([fc.uniqueArray(fc.tuple(typeName, typeName), { minLength: 1, maxLength: 5 })])(
    'parses back to the same media types with an RFC 9651 parser',
    (pairs) => {
      const types = [...new Set(pairs.map(([type, sub]) => `${type}/${sub}`))];
      const parsed = parseList(acceptQueryField(types)).map(([item]) => String(item));
      expect(parsed).toEqual(types);
      // The kit's reader reads the field back as the RFC 9651 parser does.
      expect(acceptQueryTypes(acceptQueryField(types))).toEqual(types);
    },
  );

  test.prop(
    [fc.string({ unit: fc.constantFrom('a', 'Z', '1', '*', '/', '+', '-', ':', '"', ' ', ';', '=') })],
    {
      seed: 43,
    },
  )('writes a media type as a Token exactly when RFC 9651 section 3.3.4 allows', (text) => {
    expect(isToken(text)).toBe(/^[A-Za-z*][!#$%&'*+.^_`|~0-9A-Za-z:/-]*$/.test(text));
  });

  it('reads Strings, parameters and case, and nothing from a field that is not a list', () => {
    expect(acceptQueryTypes('"1a/b", Application/JSON;q=1, text/plain;x')).toEqual([
      '1a/b',
      'application/json',
      'text/plain',
    ]);
    expect(acceptQueryTypes('application/json,, text/plain')).toEqual([]);
    expect(acceptQueryTypes('')).toEqual([]);
  });

  const contentType = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      '',
      ' ',
      'application/json',
      'APPLICATION/JSON ; charset=utf-8',
      'text/plain',
      'application/vnd.api+json',
      'application/json-seq',
    ),
  );
  test.prop([contentType])('the Content-Type decision: missing, accepted or unsupported', (value) => {
    const essence = (value ?? '').split(';')[0]!.trim().toLowerCase();
    const expected = essence === '' ? 'missing' : essence === 'application/json' ? 'accepted' : 'unsupported';
    expect(decideQueryContent(value, ['application/json']).outcome).toBe(expected);
  });
});
