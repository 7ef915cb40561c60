import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bookId, orderId, userId } from '../../examples/reference-app/ids.js';
import { OrderChange, OrderInput } from '../../examples/reference-app/orders/orders-routes.js';
import { send } from '../core/send.js';
import { bearer, referenceApp } from '../support/reference-app.js';

describe('the reference app’s declared routes', () => {
  const routes = referenceApp().app.routes();
  const find = (method: string, pattern: string) =>
    routes.find((r) => r.method === method && r.pattern === pattern);

  it('lists books and orders with what they take and who may call them', () => {
    expect(find('GET', '/books')?.query).toHaveProperty('author');
    expect(find('POST', '/orders')).toMatchObject({ auth: 'principal', body: { type: 'orders' } });
    expect(find('POST', '/orders')?.body?.codec).toBe(OrderInput);
    expect(find('PATCH', '/orders/{id}')?.body?.codec).toBe(OrderChange);
    for (const method of ['GET', 'PATCH', 'DELETE'])
      expect(find(method, '/orders/{id}')?.auth).toBe('principal');
  });

  it('documents a response for every declared books and orders route', () => {
    const declared = routes.filter((r) => r.pattern.startsWith('/books') || r.pattern.startsWith('/orders'));
    expect(declared).toHaveLength(8);
    for (const route of declared) expect(Object.keys(route.responses).length).toBeGreaterThan(0);
  });

  it('declares its ids as params codecs, so no loader checks them again', () => {
    expect(find('GET', '/books/{id}')?.params).toEqual({ id: bookId });
    for (const method of ['GET', 'PATCH', 'DELETE'])
      expect(find(method, '/orders/{id}')?.params).toEqual({ id: orderId });
    expect(find('GET', '/users/{id}/orders/{order_id}')?.params).toEqual({ id: userId, order_id: orderId });
  });

  it('answers 404 for any id segment but a canonical positive integer, before loading (property)', async () => {
    const { app } = referenceApp();
    const auth = { headers: { authorization: await bearer('1') } };
    // The model: 1 and up, decimal digits, no leading zero, at most 15 of them (a safe integer).
    const canonical = (s: string) => /^[1-9]\d{0,14}$/.test(s);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.stringMatching(/^[0-9a-z-]{1,20}$/),
          fc.nat().map(String),
          fc.nat().map((n) => `0${n}`),
        ),
        async (segment) => {
          const book = await send(app, 'GET', `/books/${segment}`);
          const order = await send(app, 'GET', `/orders/${segment}`, auth);
          if (!canonical(segment)) {
            expect(book.status).toBe(404);
            expect(order.status).toBe(404);
            expect(book.body.errors[0].detail).toBe('No resource exists at this path.');
          }
          expect(bookId.decode(segment)._tag).toBe(canonical(segment) ? 'Right' : 'Left');
        },
      ),
      { numRuns: 80 },
    );
  });

  it('is frozen', () => {
    expect(Object.isFrozen(routes)).toBe(true);
    expect(routes.every((route) => Object.isFrozen(route))).toBe(true);
  });
});
