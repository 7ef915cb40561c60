import { describe, expect, it } from 'vitest';
import { OrderChange, OrderInput } from '../../examples/reference-app/orders/orders-routes.js';
import { referenceApp } from '../support/reference-app.js';

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
    expect(declared).toHaveLength(6);
    for (const route of declared) expect(Object.keys(route.responses).length).toBeGreaterThan(0);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(routes)).toBe(true);
    expect(routes.every((route) => Object.isFrozen(route))).toBe(true);
  });
});
