import type { Context } from 'rest-conventions';
import { conditional, PRIVATE_REVALIDATED, versionEtag } from 'rest-conventions/caching';
import { defineRoute, json, type ResourceSchema } from 'rest-conventions/core';
import { deprecation } from 'rest-conventions/deprecation';
import {
  dataDocument,
  defineResourceType,
  offsetPaginator,
  relatedLink,
  toOne,
} from 'rest-conventions/envelope';
import { ownedPath, ownershipGuard, selfOrScope, visibleToOwner } from 'rest-conventions/ownership';
import { oneOf, strictObject, text } from 'rest-conventions/validation';
import { defineVersions, mapAttributes, versionedPath, versionedRoutes } from 'rest-conventions/versioning';
import type { BookStore } from '../books/book-store.js';
import { bookSchema } from '../books/books-routes.js';
import { orderId, userId } from '../ids.js';
import { includedBooks, includedMember, ORDER_INCLUDES } from '../orders/order-includes.js';
import type { Order, OrderStore } from '../orders/order-store.js';
import { orderResource, orderSchema, orderValidators } from '../orders/orders-routes.js';
import type { User, UserStore } from './user-store.js';

const userPath = (user: User) => `/users/${encodeURIComponent(user.id)}`;

/**
 * How a user is shown in the newest version (2): `givenName` and `familyName` to whoever may read the
 * user, `email` to the user themself only. Version 1 is derived by {@link userVersions}.
 */
export const userResource = defineResourceType<User, 'givenName' | 'familyName' | 'email'>({
  type: 'users',
  id: (user) => user.id,
  attributes: ['givenName', 'familyName', 'email'],
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

/**
 * The versions of the user representation. Version 2 split `name` into `givenName` and `familyName`
 * (a breaking change); version 1 is the newest representation with the two joined again.
 */
export const userVersions = defineVersions({
  latest: 2,
  transforms: {
    1: {
      description: 'v2 splits "name" into "givenName" and "familyName"',
      response: mapAttributes(
        ({ givenName, familyName, ...rest }) =>
          givenName === undefined ? rest : { name: `${String(givenName)} ${String(familyName)}`, ...rest },
        { type: 'users' },
      ),
    },
  },
});

/** Users versions: 1 and 2; the unversioned `/users/{id}` serves version 1 unless `Accept` asks. */
export const USER_VERSIONING = { supported: [1, 2], default: 1 } as const;

/** Version 1 of the users representation is deprecated, with a sunset date. */
export const USERS_V1_DEPRECATION = {
  since: '2026-06-01T00:00:00Z',
  sunset: '2027-06-01T00:00:00Z',
  version: 1,
  link: 'https://rest-conventions.dev/deprecations/users-v1',
  successor: '/v2/users/{id}',
} as const;

/**
 * A user as the API description types it: version 1 sends `name`, version 2 `givenName` and
 * `familyName`; `email` only to the user themself.
 */
export const userSchema: ResourceSchema = {
  type: 'users',
  id: userId,
  attributes: strictObject(
    {},
    {
      name: text({ maxLength: 401 }),
      givenName: text({ maxLength: 200 }),
      familyName: text({ maxLength: 200 }),
      email: text({ maxLength: 320 }),
    },
  ),
  relationships: { orders: { type: 'orders', many: true }, accountType: { type: 'account-types' } },
};

/** An account type as the API description types it. */
export const accountTypeSchema: ResourceSchema = {
  type: 'account-types',
  attributes: strictObject({ name: oneOf(['standard', 'premium'] as const) }),
};

/** Whether the caller is the user (who sees every attribute) or another permitted reader. */
function viewerOf(ctx: Context, user: User): 'self' | 'reader' {
  return ctx.var.principal?.sub === user.id ? 'self' : 'reader';
}

/** A user's account type, identified by its name (`standard`, `premium`). */
export const accountTypeResource = defineResourceType<{ readonly name: User['accountType'] }, 'name'>({
  type: 'account-types',
  id: (accountType) => accountType.name,
  attributes: ['name'],
});

/** `page[size]` and `page[number]` (JSON:API 1.0 "Pagination"): 10 per page by default, at most 100. */
export const orderPages = offsetPaginator({ defaultSize: 10, maxSize: 100 });

export interface UsersDeps {
  readonly userStore: UserStore;
  readonly orderStore: OrderStore;
  readonly bookStore: BookStore;
}

/**
 * `GET /users/{id}`, `GET /users/{id}/orders`, `GET /users/{id}/orders/{order_id}` and
 * `GET /users/{id}/account-type`. Readable by the user themself or a token with `users:read`; an
 * order under a user is found only if it is that user's (docs/ownership.md).
 */
export function usersRoutes(deps: UsersDeps) {
  const { userStore: users, orderStore: orders, bookStore: books } = deps;
  const user = ownedPath({
    param: 'id',
    noun: 'user',
    load: (id) => users.get(id),
    access: selfOrScope({ scopes: ['users:read'] }),
  });
  const userOrder = user.child({
    param: 'order_id',
    noun: 'order',
    // The route's `params` decoded the id (and refused a malformed one, 404) before the guards run.
    load: async (id: number): Promise<Order | undefined> => {
      const found = await orders.find(id);
      return found.kind === 'live' ? found.order : undefined;
    },
    belongsTo: (order, owner) => order.ownerId === owner.id,
  });
  // Layers bound to constants: a route's `ctx.var` is then typed from its `use` (`ctx.var.user`).
  const usersV1Deprecation = deprecation(USERS_V1_DEPRECATION);
  const userGuard = ownershipGuard({ path: user });
  const orderGuard = ownershipGuard({ path: userOrder });
  const revalidated = conditional({ policy: PRIVATE_REVALIDATED });
  // The guard runs first, so a 304 or an ETag never tells anything about a user one may not read.
  const readableUser = [userGuard, revalidated] as const;
  const versionedUser = conditional({
    policy: PRIVATE_REVALIDATED,
    // Cheap validators from the record; the version is part of the tag, since v1 and v2 are
    // different representations of one resource. A layer's own `ctx.var` is not typed from the
    // route: the guard before it added the user.
    validators: (ctx) => {
      const found = ctx.var.user as User;
      const version = ctx.var.apiVersion ?? USER_VERSIONING.default;
      return {
        // The owner sees `email`, other readers do not: two representations, two tags.
        etag: versionEtag(`${found.updatedAt.getTime()}.v${version}.${viewerOf(ctx, found)}`),
        lastModified: found.updatedAt,
      };
    },
  });
  // After the guard: validators only of an order the caller may read, from its version.
  const versionedOrder = conditional({
    policy: PRIVATE_REVALIDATED,
    validators: (ctx) => orderValidators(ctx.var.order as Order),
  });
  const versioned = versionedRoutes({
    method: 'GET',
    path: '/v{version}/users/{id}',
    unversioned: true,
    params: { id: userId },
    versioning: USER_VERSIONING,
    changes: userVersions,
    responses: { 200: { description: 'A user, in the version asked for', body: { resource: userSchema } } },
    use: [usersV1Deprecation, userGuard, versionedUser],
    handler: (ctx) => {
      const found = ctx.var.user;
      // Links lead back to the version asked for: /v2/users/1 links to itself, not to /users/1.
      const self = versionedPath(ctx, userPath(found));
      const resource = userResource.toResource(found, ctx.var.principal);
      return json(
        200,
        dataDocument({ ...resource, links: { ...resource.links, self } }, { links: { self } }),
      );
    },
  });
  return [
    ...versioned,
    defineRoute({
      method: 'GET',
      path: '/users/{id}/orders',
      params: { id: userId },
      auth: 'principal',
      query: { ...orderPages.query, include: ORDER_INCLUDES },
      summary: "List a user's orders",
      responses: {
        200: {
          description:
            "A page of the user's orders; with `include=book`, each of their books once in `included`",
          body: { collection: orderSchema, included: [bookSchema] },
        },
      },
      // The ETag is the digest of the body, so a page with its books has a tag of its own.
      use: readableUser,
      handler: async (ctx) => {
        const page = orderPages.page(ctx.query);
        const owner = ctx.var.user;
        const all = await orders.listByOwner(owner.id);
        const items = all.slice(page.offset, page.offset + page.size);
        const included = await includedBooks(items, ctx.query.include, books, ctx);
        return json(
          200,
          dataDocument(
            // Linked under the user, the path every reader of this listing may follow.
            items.map((order) => ({
              ...orderResource.toResource(order),
              links: { self: `${userPath(owner)}/orders/${order.id}` },
            })),
            { links: orderPages.links(ctx, page, all.length), ...includedMember(included) },
          ),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{id}/orders/{order_id}',
      params: { id: userId, order_id: orderId },
      auth: 'principal',
      summary: "Get one of a user's orders",
      responses: { 200: { description: 'One order of the user', body: { resource: orderSchema } } },
      use: [orderGuard, versionedOrder],
      handler: (ctx) => {
        const { user: owner, order } = ctx.var;
        return json(
          200,
          dataDocument(orderResource.toResource(order), {
            links: { self: `${userPath(owner)}/orders/${order.id}` },
          }),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{id}/account-type',
      params: { id: userId },
      auth: 'principal',
      summary: "Get a user's account type",
      responses: { 200: { description: "The user's account type", body: { resource: accountTypeSchema } } },
      use: readableUser,
      handler: (ctx) => {
        const found = ctx.var.user;
        return json(
          200,
          dataDocument(accountTypeResource.toResource({ name: found.accountType }), {
            links: { self: `${userPath(found)}/account-type` },
          }),
        );
      },
    }),
  ];
}
