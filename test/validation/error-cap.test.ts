import fc from 'fast-check';
import { isLeft } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import {
  decodeJsonBody,
  decodeQuery,
  MAX_ERRORS,
  MAX_UNKNOWN_FIELD_FAILURES,
  text,
} from '../../src/validation/index.js';
import { send } from '../core/send.js';
import { BARE, DOCUMENT, OrderInput, orderApp } from './order-app.js';

/** A body of `n` unknown fields (`f0`, `f1`, ...) and, when `valid`, the required fields. */
const body = (n: number, valid: boolean) =>
  JSON.stringify({
    ...(valid ? { bookId: 1, quantity: 2 } : {}),
    ...Object.fromEntries(Array.from({ length: n }, (_, i) => [i.toString(36), 0])),
  });

describe('the number of errors in one 400', () => {
  it(`lists at most ${MAX_ERRORS} and counts the rest in meta.omittedErrors (11 000 unknown fields, 94 KB)`, async () => {
    const res = await send(orderApp({ limit: 1024 * 1024 }), 'POST', '/orders', {
      headers: BARE,
      body: body(11_000, true),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_ERRORS);
    expect(res.body.meta).toEqual({ omittedErrors: 11_000 - MAX_ERRORS });
    expect(res.text.length).toBeLessThan(8_000);
  });

  it('caps problem+json documents the same way', async () => {
    const res = await send(orderApp({ limit: 1024 * 1024 }), 'POST', '/orders', {
      headers: { ...BARE, accept: 'application/problem+json, application/json;q=0.5' },
      body: body(500, false),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'multiple-errors', meta: { omittedErrors: 502 - MAX_ERRORS } });
    expect(res.body.errors).toHaveLength(MAX_ERRORS);
  });

  it('caps the problems of a JSON:API envelope', async () => {
    const document = JSON.stringify({
      data: { type: 'orders', attributes: {} },
      ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`m${i}`, i])),
    });
    const res = await send(orderApp({ limit: 1024 * 1024 }), 'POST', '/orders', {
      headers: DOCUMENT,
      body: document,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_ERRORS);
    expect(res.body.meta).toEqual({ omittedErrors: 300 - MAX_ERRORS });
  });

  it('does not build what it drops: a strict object itemizes a bounded number of unknown fields', () => {
    const input = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, i]));
    const result = OrderInput.decode(input);
    if (!isLeft(result)) throw new Error('expected a failure');
    expect(result.left.length).toBeLessThanOrEqual(MAX_UNKNOWN_FIELD_FAILURES + 3);
  });

  it('takes maxErrors, checked when called', async () => {
    const app = createApp().route({
      method: 'POST',
      path: '/orders',
      handler: async (ctx) =>
        json(200, {
          meta: { input: await decodeJsonBody(ctx, { codec: OrderInput, type: 'orders', maxErrors: 2 }) },
        }),
    });
    const res = await send(app, 'POST', '/orders', { headers: BARE, body: body(5, false) });
    expect(res.body.errors).toHaveLength(2);
    expect(res.body.meta).toEqual({ omittedErrors: 5 });
    for (const maxErrors of [0, 1.5, 1001, Number.NaN]) {
      await expect(
        decodeJsonBody({} as never, { codec: OrderInput, type: 'orders', maxErrors }),
      ).rejects.toThrow(
        new TypeError(`decodeJsonBody: "maxErrors" must be an integer from 1 to 1000, got ${maxErrors}`),
      );
    }
    expect(() => decodeQuery({ request: { search: '?a=1' } } as never, {}, { maxErrors: 0 })).toThrow(
      /decodeQuery: "maxErrors" must be an integer from 1 to 1000/,
    );
  });

  it('caps query problems', async () => {
    const app = createApp().route({
      method: 'GET',
      path: '/books',
      handler: (ctx) => json(200, { meta: decodeQuery(ctx, { author: text({ maxLength: 5 }) }) }),
    });
    const query = Array.from({ length: 200 }, (_, i) => `p${i}=1`).join('&');
    const res = await send(app, 'GET', `/books?${query}&author=toolongname`);
    expect(res.body.errors).toHaveLength(MAX_ERRORS);
    expect(res.body.meta).toEqual({ omittedErrors: 201 - MAX_ERRORS });
  });

  it('keeps the response small and the count exact for any number of problems (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 20_000 }), fc.boolean(), async (n, valid) => {
        const res = await send(orderApp({ limit: 1024 * 1024 }), 'POST', '/orders', {
          headers: BARE,
          body: body(n, valid),
        });
        const problems = n + (valid ? 0 : 2);
        if (problems === 0) {
          expect(res.status).toBe(201);
          return;
        }
        expect(res.status).toBe(400);
        expect(res.body.errors.length).toBe(Math.min(problems, MAX_ERRORS));
        expect(res.body.meta?.omittedErrors ?? 0).toBe(Math.max(0, problems - MAX_ERRORS));
        expect(res.text.length).toBeLessThan(8_000);
      }),
      { numRuns: 25 },
    );
  });
});
