import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { bearer, DATA_STORES, type memoryLogger, referenceAppOn } from '../support/reference-app.js';
import { exchange, type RawReply } from './raw-http.js';

/**
 * The raw-socket hostile corpus (issue 27): bytes a client can send that a fetch or node:http client
 * would never produce, against the reference app on every adapter and every data store. Each
 * request must get a 4xx (501 for a transfer coding the server does not implement, RFC 9112
 * section 6.1) with an error document naming nothing internal, and no error-level log.
 */
const INTERNALS = /\n\s+at |invalid byte sequence|out of range|node_modules|\.ts:\d|TypeError|RangeError/;

const request = (line: string, fields: string[] = [], body = '') =>
  `${line} HTTP/1.1\r\nHost: x\r\n${fields.map((f) => `${f}\r\n`).join('')}Connection: close\r\n\r\n${body}`;

const json = (fields: string[], value: unknown) => {
  const body = JSON.stringify(value);
  return {
    fields: [
      ...fields,
      'Content-Type: application/vnd.api+json',
      `Content-Length: ${Buffer.byteLength(body)}`,
    ],
    body,
  };
};

describe.each(DATA_STORES)('the hostile corpus on $dataStore', ({ dataStore }) => {
  describe.each(ADAPTERS.map((adapter) => ({ adapter })))('through $adapter', ({ adapter }) => {
    let served: Served;
    let close: () => Promise<void>;
    let logger: ReturnType<typeof memoryLogger>;
    let alice: string;
    let writer: string;
    let mallory: string;
    let reader: string;
    let keys = 0;
    beforeAll(async () => {
      const built = await referenceAppOn(dataStore);
      logger = built.logger;
      close = built.close;
      served = await serve(adapter, built.app, 0);
      alice = await bearer('1');
      mallory = await bearer('2');
      reader = await bearer('27', 'users:read standards:read');
      writer = await bearer('27', 'standards:read standards:write');
    });
    afterAll(async () => {
      await served?.close();
      await close?.();
    });

    const send = async (text: string): Promise<RawReply> => {
      const reply = await exchange(served.port, text);
      expect(reply.text).not.toMatch(INTERNALS);
      return reply;
    };
    const errorLogs = () => logger.entries.filter((entry) => entry.level === 'error');

    it('refuses a second Authorization field, whichever comes first (finding 2)', async () => {
      for (const pair of [
        [alice, mallory],
        [mallory, alice],
      ]) {
        const reply = await send(
          request(
            'GET /users/1',
            pair.map((token) => `Authorization: ${token}`),
          ),
        );
        expect(reply.status, adapter).toBe(400);
        expect(reply.body).not.toContain('@');
        expect(JSON.parse(reply.body).errors[0].source).toEqual({ header: 'Authorization' });
      }
    });

    it('answers NUL and other text no store can hold with 400, logging no error (finding 1)', async () => {
      for (const target of [
        'GET /books?author=%00',
        'GET /books?author=a%00b',
        'GET /users/%00',
        'GET /users/a%00/orders',
        'GET /users/1/orders?page[after]=%00',
        'GET /api/v1/standards/%00',
      ]) {
        // With a token that may read them, so the request reaches the store.
        const reply = await send(request(target, [`Authorization: ${reader}`]));
        expect(reply.status, target).toBeGreaterThanOrEqual(400);
        expect(reply.status, target).toBeLessThan(500);
      }
      for (const [name, description] of [
        ['a\u0000b', 'fine'],
        ['fine', 'x\u0000'],
      ]) {
        const { fields, body } = json(
          [`Authorization: ${writer}`, `Idempotency-Key: "nul-${adapter}-${++keys}"`],
          { data: { type: 'standards', attributes: { code: 'NUL-1', name, description } } },
        );
        const reply = await send(request('POST /api/v1/standards/', fields, body));
        expect(reply.status).toBe(400);
        expect(JSON.parse(reply.body).errors[0].source.pointer).toMatch(
          /^\/data\/attributes\/(name|description)$/,
        );
      }
      expect(errorLogs()).toEqual([]);
    });

    it('answers forged cursors and out-of-range pages with 400 (finding 1)', async () => {
      const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const cursor of [
        forged([-8.64e15, 'x']),
        forged([8.64e15 + 1, 'x']),
        forged(['x', 1]),
        forged([1, '\u0000']),
        forged({}),
        'not base64 at all!',
      ]) {
        const reply = await send(
          request(`GET /api/v1/standards/?page[after]=${encodeURIComponent(cursor)}`, [
            `Authorization: ${writer}`,
          ]),
        );
        expect(reply.status, cursor).toBe(400);
        expect(JSON.parse(reply.body).errors[0].code).toBe('invalid-cursor');
      }
      for (const target of [
        'GET /books?page[number]=99999999999999999999',
        'GET /books?page[size]=1e400',
        'GET /books/99999999999999999999',
        'GET /orders/99999999999999999999',
      ]) {
        const reply = await send(request(target, [`Authorization: ${alice}`]));
        expect(reply.status, target).toBeGreaterThanOrEqual(400);
        expect(reply.status, target).toBeLessThan(500);
      }
      expect(errorLogs()).toEqual([]);
    });

    it('answers obs-fold, bare CR, NUL in a field and unknown codings with 4xx or 501 (findings 2, 7)', async () => {
      for (const text of [
        request('GET /books', ['X-Folded: a', ' b']),
        request('GET /books', ['Authorization: Bearer', ` ${alice.slice(7)}`]),
        request('GET /books', ['X-Nul: a\u0000b']),
        request('GET /books', ['X-Cr: a\rb']),
        request('GET /books', ['Content-Length: 1', 'Content-Length: 2']),
        request('POST /orders', ['Transfer-Encoding: gzip, chunked'], '0\r\n\r\n'),
        request('POST /orders', ['Transfer-Encoding: chunked, gzip'], '0\r\n\r\n'),
        request('POST /orders', ['Transfer-Encoding: chunked', 'Content-Length: 5'], '0\r\n\r\n'),
      ]) {
        const reply = await send(text);
        expect(
          reply.status === undefined || (reply.status >= 400 && reply.status < 500) || reply.status === 501,
          text,
        ).toBe(true);
      }
      expect(errorLogs()).toEqual([]);
    });
  });
});
