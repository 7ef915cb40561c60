import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { integer, oneOf, strictObject, text } from '../../src/validation/codecs.js';
import { bodyPointer, decodeJsonBody } from '../../src/validation/decode-body.js';
import { send } from '../core/send.js';
import { asDocument, BARE, DOCUMENT, orderApp } from './order-app.js';

const post = (body: string, headers: Record<string, string> = BARE, limit?: number) =>
  send(orderApp(limit === undefined ? {} : { limit }), 'POST', '/orders', { headers, body });
const pointers = (body: { errors: { source?: { pointer?: string } }[] }) =>
  body.errors.map((e) => e.source?.pointer);

describe('decodeJsonBody', () => {
  describe('when the body is valid', () => {
    it('decodes bare attributes sent as application/json', async () => {
      const res = await post('{"bookId": 1, "quantity": 2}');
      expect(res.status).toBe(201);
      expect(res.body.data.attributes).toEqual({ bookId: 1, quantity: 2 });
    });

    it('decodes a JSON:API resource document to the same value', async () => {
      const res = await post(asDocument({ bookId: 1, quantity: 2 }), DOCUMENT);
      expect(res.status).toBe(201);
      expect(res.body.data.attributes).toEqual({ bookId: 1, quantity: 2 });
    });

    it('accepts media type parameters and any letter case', async () => {
      expect(
        (await post('{"bookId":1,"quantity":2}', { 'content-type': 'Application/JSON; charset=utf-8' }))
          .status,
      ).toBe(201);
    });
  });

  describe('when the Content-Type is not JSON', () => {
    it.each([
      ['text/plain'],
      ['application/x-www-form-urlencoded'],
      ['multipart/form-data; boundary=x'],
      ['application/jsonx'],
    ])('answers 415 naming the header for %s', async (type) => {
      const res = await post('{"bookId":1,"quantity":2}', { 'content-type': type });
      expect(res.status).toBe(415);
      expect(res.body.errors[0]).toMatchObject({
        status: '415',
        code: 'unsupported-media-type',
        source: { header: 'Content-Type' },
      });
      expect(res.headers['accept-post']).toBe('application/json, application/vnd.api+json');
    });

    it('answers 415 saying no Content-Type was sent when it is missing', async () => {
      const res = await post('{"bookId":1,"quantity":2}', {});
      expect(res.status).toBe(415);
      expect(res.body.errors[0].source).toEqual({ header: 'Content-Type' });
      expect(res.body.errors[0].detail).toMatch(/no Content-Type was sent/);
    });
  });

  describe('when the body is too large', () => {
    it('answers 413 when Content-Length exceeds the limit', async () => {
      const body = JSON.stringify({ bookId: 1, quantity: 2, note: 'x'.repeat(100) });
      const res = await post(body, { ...BARE, 'content-length': String(Buffer.byteLength(body)) }, 64);
      expect(res.status).toBe(413);
      expect(res.body.errors[0]).toMatchObject({ status: '413', code: 'body-too-large' });
    });

    it('answers 413 when a body without Content-Length exceeds the limit', async () => {
      const res = await post(JSON.stringify({ bookId: 1, quantity: 2, note: 'x'.repeat(100) }), BARE, 64);
      expect(res.status).toBe(413);
    });
  });

  describe('when the body is not JSON', () => {
    it.each(['{"bookId": 1,', "{'bookId': 1}", 'NaN', '{"a":1}{"b":2}'])(
      'answers 400 for %s',
      async (body) => {
        const res = await post(body);
        expect(res.status).toBe(400);
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0]).toMatchObject({ code: 'malformed-json', source: { pointer: '' } });
      },
    );

    it('answers 400 for an empty body', async () => {
      const res = await post('   ');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].detail).toMatch(/empty/);
    });
  });

  describe('when fields are invalid', () => {
    it('reports one error per bad field with its pointer (bare attributes)', async () => {
      const res = await post('{"bookId": "one", "quantity": 0, "note": ""}');
      expect(res.status).toBe(400);
      expect(pointers(res.body).sort()).toEqual(['/bookId', '/note', '/quantity']);
      expect(res.body.errors.every((e: { code: string }) => e.code === 'invalid-field')).toBe(true);
      expect(
        res.body.errors.find((e: { source: { pointer: string } }) => e.source.pointer === '/quantity').detail,
      ).toBe('"quantity" must be an integer from 1 to 100, got the number 0.');
    });

    it('reports pointers inside the document for a JSON:API resource document', async () => {
      const res = await post(asDocument({ bookId: -1, quantity: 101 }), DOCUMENT);
      expect(res.status).toBe(400);
      expect(pointers(res.body).sort()).toEqual(['/data/attributes/bookId', '/data/attributes/quantity']);
    });

    it('reports missing required fields', async () => {
      const res = await post('{}');
      expect(
        res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer]),
      ).toEqual([
        ['missing-field', '/bookId'],
        ['missing-field', '/quantity'],
      ]);
    });

    it('rejects unknown fields instead of dropping them', async () => {
      const res = await post('{"bookId": 1, "quantity": 2, "price": 0, "userId": "2"}');
      expect(res.status).toBe(400);
      expect(
        res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer]),
      ).toEqual([
        ['unknown-field', '/price'],
        ['unknown-field', '/userId'],
      ]);
    });

    it.each([
      ['1.5', '1.5'],
      ['"1"', 'the string "1"'],
      ['1e300', '1e+300'],
      ['9007199254740993', '9007199254740992'],
      ['true', 'boolean'],
      ['null', 'null'],
    ])('rejects %s where an integer is required', async (value, described) => {
      const res = await post(`{"bookId": ${value}, "quantity": 2}`);
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['/bookId']);
      expect(res.body.errors[0].detail).toContain(described);
    });

    it('rejects a body that is not an object', async () => {
      for (const body of ['[]', '42', '"x"', 'null']) {
        const res = await post(body);
        expect(res.status, body).toBe(400);
        expect(pointers(res.body)).toEqual(['']);
      }
    });

    it('escapes pointer tokens (RFC 6901) and points at an empty-named field as "/"', async () => {
      const res = await post('{"bookId": 1, "quantity": 2, "a/b~c": 1, "": 2}');
      expect(pointers(res.body).sort()).toEqual(['/', '/a~1b~0c']);
    });

    it('reports a failed union once, at the field', async () => {
      const app = createApp().route({
        method: 'POST',
        path: '/notes',
        handler: async (ctx) => {
          const input = await decodeJsonBody(ctx, {
            codec: strictObject({ text: t.union([t.null, text()]), tags: t.array(oneOf(['a', 'b'])) }),
            type: 'notes',
          });
          return json(200, { meta: input });
        },
      });
      const res = await send(app, 'POST', '/notes', {
        headers: BARE,
        body: '{"text": 5, "tags": ["a", "c"]}',
      });
      expect(pointers(res.body)).toEqual(['/text', '/tags/1']);
      expect(res.body.errors[0].detail).toMatch(/"text" must be \(null \| a string/);
    });
  });

  describe('when a JSON:API resource document is malformed', () => {
    it('answers 409 when data.type is another type', async () => {
      const res = await post(
        JSON.stringify({ data: { type: 'books', attributes: { bookId: 1, quantity: 2 } } }),
        DOCUMENT,
      );
      expect(res.status).toBe(409);
      expect(res.body.errors[0]).toMatchObject({ code: 'type-mismatch', source: { pointer: '/data/type' } });
    });

    it('answers 400 when data.type is missing', async () => {
      const res = await post(JSON.stringify({ data: { attributes: { bookId: 1, quantity: 2 } } }), DOCUMENT);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'missing-field', source: { pointer: '/data/type' } });
    });

    it('refuses relationships, which attributes codecs would drop', async () => {
      const data = { type: 'orders', attributes: { bookId: 1, quantity: 2 }, relationships: {} };
      const res = await post(JSON.stringify({ data }), DOCUMENT);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({
        code: 'unknown-field',
        source: { pointer: '/data/relationships' },
      });
    });

    it('answers 415 to a JSON:API media type with a parameter other than version or charset', async () => {
      const res = await post(
        JSON.stringify({ data: { type: 'orders', attributes: { bookId: 1, quantity: 2 } } }),
        { 'content-type': 'application/vnd.api+json; ext="https://example.com/ext"' },
      );
      expect(res.status).toBe(415);
      expect(res.body.errors[0].source).toEqual({ header: 'Content-Type' });
    });

    it('answers 403 when the client sends data.id', async () => {
      const res = await post(
        JSON.stringify({ data: { type: 'orders', id: '5', attributes: { bookId: 1, quantity: 2 } } }),
        DOCUMENT,
      );
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toMatchObject({
        code: 'client-id-unsupported',
        source: { pointer: '/data/id' },
      });
    });

    it('answers 400 for unknown members of the document and of data', async () => {
      const body = JSON.stringify({ data: { type: 'orders', attributes: {}, extra: 1 }, errors: [] });
      const res = await post(body, DOCUMENT);
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['/errors', '/data/extra']);
    });

    it('escapes the pointers of unknown members (RFC 6901)', async () => {
      const body = JSON.stringify({ 'a/b': 1, data: { type: 'orders', attributes: {}, '~x': 1 } });
      const res = await post(body, DOCUMENT);
      expect(pointers(res.body)).toEqual(['/a~1b', '/data/~0x']);
    });

    it('answers 400 when data is missing or not an object', async () => {
      for (const body of ['{}', '{"data": []}', '{"data": null}', '[]']) {
        const res = await post(body, DOCUMENT);
        expect(res.status, body).toBe(400);
      }
    });
  });

  describe('bodyPointer', () => {
    it('points into the document or the bare attributes, as the client sent them', async () => {
      const app = createApp().route({
        method: 'POST',
        path: '/orders',
        handler: (ctx) => json(200, { meta: { pointer: bodyPointer(ctx, 'book/id') } }),
      });
      expect((await send(app, 'POST', '/orders', { headers: BARE })).body.meta.pointer).toBe('/book~1id');
      expect((await send(app, 'POST', '/orders', { headers: DOCUMENT })).body.meta.pointer).toBe(
        '/data/attributes/book~1id',
      );
    });
  });

  it('integer() describes its bounds', () => {
    expect(integer().name).toBe('an integer');
    expect(integer({ min: 1 }).name).toBe('an integer of at least 1');
    expect(integer({ max: 5 }).name).toBe('an integer of at most 5');
  });
});
