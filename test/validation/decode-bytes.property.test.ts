import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { errorDocument } from '../../src/errors/error-document.js';
import { decodeJsonBytes } from '../../src/validation/decode-body.js';
import { send } from '../core/send.js';
import { asDocument, OrderInput, orderApp } from './order-app.js';

// decodeJsonBytes is decodeJsonBody without a request: the same bytes and Content-Type must get the
// same value or the same error document, whether the body comes through an app's request stream or
// straight from the caller (a framework that read it, a queue message).
const LIMIT = 256;
const app = orderApp({ limit: LIMIT });
const options = { codec: OrderInput, type: 'orders', limit: LIMIT };

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/vnd.api+json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'application/vnd.api+json; ext=x',
    'application/json; =',
    'text/plain',
  ),
  fc.constant(undefined),
);
const attributes = fc.record(
  {
    bookId: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string()),
    quantity: fc.integer({ min: 0, max: 120 }),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  attributes.map((a) => Buffer.from(JSON.stringify(a))),
  attributes.map((a) => Buffer.from(asDocument(a))),
  fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.alloc(LIMIT + 1, 0x20)),
);

function direct(type: string | undefined, bytes: Uint8Array) {
  try {
    return {
      status: 201,
      document: { data: { type: 'orders', id: '1', attributes: decodeJsonBytes(type, bytes, options) } },
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, document: errorDocument(error) };
  }
}

describe('decodeJsonBytes, the plain-value core of decodeJsonBody', () => {
  test.prop([contentType, body])(
    'gives what decodeJsonBody gives for the same request',
    async (type, bytes) => {
      const sent = await send(app, 'POST', '/orders', {
        headers: type === undefined ? {} : { 'content-type': type },
        body: bytes,
      });
      const expected = direct(type, bytes);
      expect(sent.status).toBe(expected.status);
      expect(sent.body).toEqual(JSON.parse(JSON.stringify(expected.document)));
    },
  );

  it('decodes a JSON:API document to its attributes', () => {
    const bytes = Buffer.from(asDocument({ bookId: 3, quantity: 2 }));
    expect(decodeJsonBytes('application/vnd.api+json', bytes, options)).toEqual({ bookId: 3, quantity: 2 });
  });

  it('refuses bytes over the limit with 413', () => {
    expect(() => decodeJsonBytes('application/json', Buffer.alloc(LIMIT + 1), options)).toThrow(
      expect.objectContaining({ status: 413 }),
    );
  });
});
