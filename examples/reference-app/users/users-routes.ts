import type { App } from 'rest-conventions';
import { json } from 'rest-conventions/core';
import {
  dataDocument,
  defineResourceType,
  pageLink,
  relatedLink,
  selfLink,
  toOne,
} from 'rest-conventions/envelope';
import { ownedPath, ownershipGuard, selfOrScope, visibleToOwner } from 'rest-conventions/ownership';
import { decodeQuery, queryInteger } from 'rest-conventions/validation';
import type { Order, OrderStore } from '../orders/order-store.js';
import { orderResource } from '../orders/orders-routes.js';
import type { User, UserStore } from './user-store.js';

const userPath = (user: User) => `/users/${encodeURIComponent(user.id)}`;

/** How a user is shown: `name` to whoever may read the user, `email` to the user themself only. */
export const userResource = defineResourceType<User, 'name' | 'email'>({
  type: 'users',
  id: (user) => user.id,
  attributes: ['name', 'email'],
  visibleTo: { email: visibleToOwner((user) => user.id) },
  links: (user) => ({ self: userPath(user) }),
  relationships: (user) => ({
    orders: relatedLink(`${userPath(user)}/orders`),
    accountType: toOne(
      { type: 'account-types', id: user.accountType },
      { related: `${userPath(user)}/account-type` },
    ),
  }),
});

/** A user's account type, identified by its name (`standard`, `premium`). */
export const accountTypeResource = defineResourceType<{ readonly name: User['accountType'] }, 'name'>({
  type: 'account-types',
  id: (accountType) => accountType.name,
  attributes: ['name'],
});

/** `page[size]` and `page[number]` (JSON:API 1.0 "Pagination"): 10 per page by default, at most 100. */
export const PAGE_QUERY = {
  'page[size]': queryInteger({ min: 1, max: 100 }),
  'page[number]': queryInteger({ min: 1, max: Number.MAX_SAFE_INTEGER }),
} as const;
export const DEFAULT_PAGE_SIZE = 10;

const ORDER_ID = /^[1-9]\d{0,15}$/;

/**
 * `GET /users/{id}`, `GET /users/{id}/orders`, `GET /users/{id}/orders/{order_id}` and
 * `GET /users/{id}/account-type`. Readable by the user themself or a token with `users:read`; an
 * order under a user is found only if it is that user's (seed section 5.3).
 */
export class UsersRoutes {
  static readonly inject = ['userStore', 'orderStore'] as const;

  private readonly user;
  private readonly userOrder;

  constructor(
    users: UserStore,
    private readonly orders: OrderStore,
  ) {
    this.user = ownedPath({
      param: 'id',
      noun: 'user',
      load: (id) => users.get(id),
      access: selfOrScope({ scopes: ['users:read'] }),
    });
    this.userOrder = this.user.child({
      param: 'order_id',
      noun: 'order',
      // A malformed id names no order: the same 404 as an absent one.
      load: async (id): Promise<Order | undefined> => {
        if (!ORDER_ID.test(id)) return undefined;
        const found = await orders.find(Number(id));
        return found.kind === 'live' ? found.order : undefined;
      },
      belongsTo: (order, user) => order.ownerId === user.id,
    });
  }

  register(app: App): void {
    const { user, userOrder } = this;
    const userGuard = [ownershipGuard({ path: user })];
    app.route({
      method: 'GET',
      path: '/users/{id}',
      use: userGuard,
      handler: (ctx) => {
        const [found] = user.records(ctx);
        return json(
          200,
          dataDocument(userResource.toResource(found, ctx.principal), { links: { self: userPath(found) } }),
        );
      },
    });
    app.route({
      method: 'GET',
      path: '/users/{id}/orders',
      use: userGuard,
      handler: async (ctx) => {
        const query = decodeQuery(ctx, PAGE_QUERY);
        const size = query['page[size]'] ?? DEFAULT_PAGE_SIZE;
        const number = query['page[number]'] ?? 1;
        const [owner] = user.records(ctx);
        const all = await this.orders.listByOwner(owner.id);
        const start = (number - 1) * size;
        const items = all.slice(start, start + size);
        // Links keep the request's other parameters (only page[size] can be there) and change the page.
        const linkToPage = (n: number) => pageLink(ctx, { 'page[number]': String(n) });
        const last = Math.max(1, Math.ceil(all.length / size));
        return json(
          200,
          dataDocument(
            items.map((order) => orderResource.toResource(order)),
            {
              links: {
                self: selfLink(ctx),
                first: linkToPage(1),
                last: linkToPage(last),
                ...(number > 1 ? { prev: linkToPage(Math.min(number - 1, last)) } : {}),
                ...(start + size < all.length ? { next: linkToPage(number + 1) } : {}),
              },
            },
          ),
        );
      },
    });
    app.route({
      method: 'GET',
      path: '/users/{id}/orders/{order_id}',
      use: [ownershipGuard({ path: userOrder })],
      handler: (ctx) => {
        const [owner, order] = userOrder.records(ctx);
        return json(
          200,
          dataDocument(orderResource.toResource(order), {
            links: { self: `${userPath(owner)}/orders/${order.id}` },
          }),
        );
      },
    });
    app.route({
      method: 'GET',
      path: '/users/{id}/account-type',
      use: userGuard,
      handler: (ctx) => {
        const [found] = user.records(ctx);
        return json(
          200,
          dataDocument(accountTypeResource.toResource({ name: found.accountType }), {
            links: { self: `${userPath(found)}/account-type` },
          }),
        );
      },
    });
  }
}
