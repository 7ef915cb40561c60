import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { decodeJsonBody, strictObject, text } from '../../src/validation/index.js';
import { send } from '../core/send.js';
import { asDocument, orderApp } from './order-app.js';

const post = (body: string | Uint8Array, contentType: string) =>
  send(orderApp(), 'POST', '/orders', { headers: { 'content-type': contentType }, body });

/** `{"bookId":1,"quantity":2,"note":"ab<bytes>cd"}` with raw bytes inside the note. */
const withBytes = (bytes: readonly number[]) =>
  Buffer.concat([
    Buffer.from('{"bookId":1,"quantity":2,"note":"ab'),
    Buffer.from(bytes),
    Buffer.from('cd"}'),
  ]);

describe('request body encoding (RFC 8259 section 8.1: JSON is UTF-8)', () => {
  it('answers 400 invalid-utf8 for bytes that are not UTF-8, and stores nothing', async () => {
    const res = await post(withBytes([0xff, 0xfe]), 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        code: 'invalid-utf8',
        source: { pointer: '' },
        detail: expect.stringMatching(/UTF-8/),
      }),
    ]);
  });

  it('accepts well-formed UTF-8, multi-byte characters included', async () => {
    const res = await post(withBytes([...Buffer.from('é😀')]), 'application/json');
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.note).toBe('abé😀cd');
  });

  it('decides UTF-8 validity like a strict decoder, for any bytes (property)', async () => {
    // Independent oracle: a UTF-8 round trip changes the bytes exactly when they are not valid UTF-8.
    const valid = (bytes: Uint8Array) =>
      Buffer.from(Buffer.from(bytes).toString('utf8'), 'utf8').equals(Buffer.from(bytes));
    await fc.assert(
      fc.asyncProperty(
        fc
          .uint8Array({ maxLength: 6 })
          .filter((b) => !b.includes(0x22) && !b.includes(0x5c) && b.every((x) => x >= 0x20)),
        async (bytes) => {
          const res = await post(withBytes([...bytes]), 'application/json');
          expect(res.status).toBe(valid(bytes) ? 201 : 400);
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([
    'application/json; charset=latin1',
    'application/json; charset=ISO-8859-1',
    'application/json;CHARSET="us-ascii"',
    'application/json; charset=utf-16',
    'application/vnd.api+json; charset=windows-1252',
  ])('answers 415 for %s', async (contentType) => {
    const res = await post('{"bookId":1,"quantity":2}', contentType);
    expect(res.status).toBe(415);
    expect(res.body.errors[0]).toMatchObject({
      code: 'unsupported-media-type',
      source: { header: 'Content-Type' },
    });
    expect(res.body.errors[0].detail).toMatch(/UTF-8/);
    expect(res.headers['accept-post']).toBe('application/json, application/vnd.api+json');
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json; Charset="UTF-8"',
    'application/json;charset=Utf-8',
  ])('accepts %s', async (contentType) => {
    expect((await post('{"bookId":1,"quantity":2}', contentType)).status).toBe(201);
  });

  it('reads quoted parameter values as one value: version="1;x" is a version, not a parameter "x"', async () => {
    const res = await post(asDocument({ bookId: 1, quantity: 2 }), 'application/vnd.api+json; version="1;x"');
    expect(res.status).toBe(201);
  });

  it('answers 415 for malformed parameters', async () => {
    expect((await post('{"bookId":1,"quantity":2}', 'application/json; charset="utf-8')).status).toBe(415);
    expect((await post('{"bookId":1,"quantity":2}', 'application/json; charset')).status).toBe(415);
  });
});

describe('a JSON:API document sent as application/json', () => {
  it('answers one 415 saying JSON:API documents go as application/vnd.api+json', async () => {
    const res = await post(asDocument({ bookId: 1, quantity: 2 }), 'application/json');
    expect(res.status).toBe(415);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      code: 'unsupported-media-type',
      source: { header: 'Content-Type' },
    });
    expect(res.body.errors[0].detail).toMatch(
      /send JSON:API documents with Content-Type: application\/vnd\.api\+json/,
    );
    expect(res.headers['accept-post']).toBe('application/json, application/vnd.api+json');
  });

  it('still decodes attributes that have a data field when the codec takes one', async () => {
    const codec = strictObject({ data: strictObject({ type: text() }) });
    const app = createApp().route({
      method: 'POST',
      path: '/notes',
      handler: async (ctx) => json(201, { meta: await decodeJsonBody(ctx, { codec, type: 'notes' }) }),
    });
    const res = await send(app, 'POST', '/notes', {
      headers: { 'content-type': 'application/json' },
      body: '{"data":{"type":"x"}}',
    });
    expect(res.status).toBe(201);
  });

  it('keeps field errors for bare attributes that are not a document', async () => {
    const res = await post('{"data":1,"bookId":1}', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(['unknown-field', 'missing-field']);
  });
});
