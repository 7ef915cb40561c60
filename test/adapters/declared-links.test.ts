import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../examples/reference-app/serve.js';
import { bearer, referenceAppOnEveryAdapter } from '../support/reference-app.js';

/**
 * The reference app's link-carrying answers (docs/core.md, "Declared links") through every adapter:
 * the books list links `order` to the orders collection, a new order (and its replay) links `payment`,
 * and each link, followed as its method says, leads to an answer: 2xx for the owner, 404 for another
 * user, as the payments route documents.
 */
describe('declared links, followed, on every adapter', () => {
  const served = referenceAppOnEveryAdapter();
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    alice = await bearer('alice-links');
    bob = await bearer('bob-links');
  });

  it.each(ADAPTERS)(
    '%s: order from the books list, payment from a new order and its replay',
    async (adapter) => {
      const base = served.base(adapter);
      const list = await fetch(`${base}/books?author=Italo%20Calvino`);
      expect(list.status).toBe(200);
      const { links: listLinks } = await list.json();
      expect(listLinks).toEqual({ self: '/books?author=Italo%20Calvino', order: '/orders' });

      // `order` is the orders collection: an order is created by POST to it.
      const create = () =>
        fetch(`${base}${listLinks.order}`, {
          method: 'POST',
          headers: {
            authorization: alice,
            'content-type': 'application/json',
            'idempotency-key': `"links-${adapter}"`,
          },
          body: '{"bookId":1,"quantity":1}',
        });
      const created = await create();
      expect(created.status).toBe(201);
      const order = await created.json();
      const id: string = order.data.id;
      expect(order.links).toEqual({
        self: `/orders/${id}`,
        payment: `/orders/${id}/payments?discount=WELCOME10`,
      });

      const replay = await create();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(order);

      const self = await fetch(`${base}${order.links.self}`, { headers: { authorization: alice } });
      expect(self.status).toBe(200);
      const strangersPayment = await fetch(`${base}${order.links.payment}`, {
        method: 'POST',
        headers: { authorization: bob },
      });
      expect(strangersPayment.status).toBe(404);
      const payment = await fetch(`${base}${order.links.payment}`, {
        method: 'POST',
        headers: { authorization: alice },
      });
      expect(payment.status).toBe(201);
      const paid = await payment.json();
      expect(paid.data.attributes.discount).toBe('WELCOME10');
      const location = payment.headers.get('location')!;
      expect((await fetch(`${base}${location}`, { headers: { authorization: alice } })).status).toBe(200);
      expect((await fetch(`${base}${location}`, { headers: { authorization: bob } })).status).toBe(404);
    },
  );
});
