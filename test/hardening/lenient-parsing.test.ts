import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { misplacedWildcard } from '../../src/caching/entity-tag.js';
import { send } from '../core/send.js';
import { bearer, referenceApp } from '../support/reference-app.js';
import { exchange, listen } from './raw-http.js';

describe('two Authorization fields (issue 18, item 9)', () => {
  let port: number;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ port, close } = await listen(referenceApp().app));
  });
  afterAll(() => close());

  it('answers 400 over a real socket, whichever credential comes first', async () => {
    const good = await bearer('1');
    for (const [first, second] of [
      [good, 'Bearer a.b.N'],
      ['Bearer a.b.N', good],
      [good, good],
      ['Basic dXNlcjpwYXNz', good],
    ]) {
      const reply = await exchange(
        port,
        `GET /users/1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(reply.status).toBe(400);
      const body = JSON.parse(reply.body);
      expect(body.errors[0].source).toEqual({ header: 'Authorization' });
    }
  });

  it('still accepts one Authorization field', async () => {
    const reply = await exchange(
      port,
      `GET /users/1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${await bearer('1')}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.status).toBe(200);
  });

  it('answers 400 when a fetch-style adapter hands over the two fields joined by a comma', async () => {
    const { app } = referenceApp();
    const joined = `${await bearer('1')}, ${await bearer('1')}`;
    const response = await send(app, 'GET', '/users/1/orders', { headers: { authorization: joined } });
    expect(response.status).toBe(400);
  });
});

describe('If-Match: * stands alone (RFC 9110 section 13.1.1; issue 18, item 9)', () => {
  for (const value of ['*, "1"', '"1", *', '*,*', 'W/"x", * ']) {
    it(`answers 400 to If-Match: ${value}`, async () => {
      const { app } = referenceApp();
      const token = await bearer('1');
      const created = await send(app, 'POST', '/orders', {
        headers: {
          authorization: token,
          'content-type': 'application/vnd.api+json',
          'idempotency-key': '"k1"',
        },
        body: JSON.stringify({ data: { type: 'orders', attributes: { bookId: 2, quantity: 1 } } }),
      });
      expect(created.status).toBe(201);
      const path = new URL(created.headers.location!, 'http://x').pathname;
      const response = await send(app, 'PATCH', path, {
        headers: {
          authorization: token,
          'content-type': 'application/vnd.api+json',
          'idempotency-key': '"k2"',
          'if-match': value,
        },
        body: JSON.stringify({ data: { type: 'orders', attributes: { quantity: 2 } } }),
      });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].source).toEqual({ header: 'If-Match' });
    });
  }
});

describe('misplacedWildcard, against a model of the list it was built from', () => {
  const member = fc.oneof(
    fc.constant('*'),
    fc.stringMatching(/^[\x21\x23-\x29\x2b\x2d-\x7e]{0,6}$/).map((o) => `"${o}"`),
    fc.stringMatching(/^[\x21\x23-\x7e]{0,6}$/).map((o) => `W/"${o}"`),
  );
  const ows = fc.constantFrom('', ' ', '\t', '  ');
  test.prop([fc.array(fc.tuple(ows, member, ows), { minLength: 1, maxLength: 5 })])(
    'is true exactly when `*` is one member of several',
    (members) => {
      const value = members.map(([a, m, b]) => `${a}${m}${b}`).join(',');
      const names = members.map(([, m]) => m);
      expect(misplacedWildcard(value)).toBe(names.length > 1 && names.includes('*'));
    },
  );
});

describe('a repeated Authorization field, against how it was built', () => {
  const b64token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,40}=*$/);
  const token68 = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,40}=*$/);
  const credential = fc.oneof(
    b64token.map((t) => `Bearer ${t}`),
    token68.map((t) => `Basic ${t}`),
    fc.constantFrom('Bearer a.b.N', 'Token x'),
  );
  const app = referenceApp().app;
  test.prop([credential, credential, fc.constantFrom(', ', ',', ' ,  ')])(
    'two credentials joined by a comma are a 400, one alone never is',
    async (first, second, comma) => {
      const twice = await send(app, 'GET', '/books/1', {
        headers: { authorization: `${first}${comma}${second}` },
      });
      expect(twice.status).toBe(400);
      const once = await send(app, 'GET', '/books/1', { headers: { authorization: first } });
      expect(once.status).not.toBe(400);
    },
  );
});
