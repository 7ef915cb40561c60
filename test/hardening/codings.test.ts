import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, referenceApp } from '../support/reference-app.js';
import { exchange, listen } from './raw-http.js';

const ORDER = JSON.stringify({ data: { type: 'orders', attributes: { bookId: 2, quantity: 1 } } });

function chunked(body: string): string {
  return `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

describe('request codings are not ignored (issue 18, item 6)', () => {
  let port: number;
  let close: () => Promise<void>;
  let token: string;
  let n = 0;
  beforeAll(async () => {
    ({ port, close } = await listen(referenceApp().app));
    token = await bearer('1');
  });
  afterAll(() => close());

  const post = (headers: string, body: string) =>
    exchange(
      port,
      `POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\nContent-Type: application/vnd.api+json\r\n` +
        `Idempotency-Key: "codings-${++n}"\r\nConnection: close\r\n${headers}\r\n${body}`,
    );

  it('answers 501 to Transfer-Encoding: gzip, chunked (RFC 9112 section 6.1)', async () => {
    const reply = await post('Transfer-Encoding: gzip, chunked\r\n', chunked(ORDER));
    expect(reply.status).toBe(501);
    expect(JSON.parse(reply.body).errors[0]).toMatchObject({
      status: '501',
      source: { header: 'Transfer-Encoding' },
    });
  });

  it('still accepts Transfer-Encoding: chunked', async () => {
    const reply = await post('Transfer-Encoding: chunked\r\n', chunked(ORDER));
    expect(reply.status).toBe(201);
  });

  for (const coding of ['gzip', 'br', 'deflate', 'identity, gzip']) {
    it(`answers 415 with Accept-Encoding to Content-Encoding: ${coding} (RFC 9110 section 15.5.16)`, async () => {
      const reply = await post(`Content-Encoding: ${coding}\r\nContent-Length: ${ORDER.length}\r\n`, ORDER);
      expect(reply.status).toBe(415);
      expect(reply.headers['accept-encoding']).toBe('identity');
      expect(JSON.parse(reply.body).errors[0]).toMatchObject({ source: { header: 'Content-Encoding' } });
    });
  }

  it('accepts Content-Encoding: identity', async () => {
    const reply = await post(`Content-Encoding: identity\r\nContent-Length: ${ORDER.length}\r\n`, ORDER);
    expect(reply.status).toBe(201);
  });
});
