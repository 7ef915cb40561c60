/**
 * `ctx.var` is typed at the route from what its layers add, with no type argument: compiled by
 * `npm run typecheck` (an expectation that does not hold, or a `@ts-expect-error` line that compiles,
 * fails it).
 */
import { describe, expectTypeOf, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { requireAuth, requireScopes } from '../../src/auth/middleware.js';
import { conditional, type Validators } from '../../src/caching/index.js';
import { json } from '../../src/core/response.js';
import { defineRoute } from '../../src/core/route.js';
import type { Context, Principal } from '../../src/http/types.js';
import { ownedPath, ownedResource, ownershipGuard, selfOrScope } from '../../src/ownership/index.js';
import { versioning } from '../../src/versioning/index.js';

interface Book {
  readonly id: string;
  readonly version: number;
}
interface User {
  readonly id: string;
}
interface Order {
  readonly id: string;
  readonly userId: string;
}

describe('ctx.var at a declared route', () => {
  it('has the principal after requireAuth(), requireScopes() or auth, and only maybe without', () => {
    defineRoute({
      method: 'GET',
      path: '/me',
      use: [requireAuth()],
      handler: (ctx) => {
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, { meta: { sub: ctx.var.principal.sub } });
      },
    });
    defineRoute({
      method: 'GET',
      path: '/admin',
      use: [requireScopes({ scopes: ['admin'] })],
      handler: (ctx) => json(200, { meta: { sub: ctx.var.principal.sub } }),
    });
    defineRoute({
      method: 'GET',
      path: '/open',
      handler: (ctx) => {
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal | undefined>();
        // @ts-expect-error: no layer of this route guarantees a principal
        ctx.var.principal.sub;
        return json(200, {});
      },
    });
  });

  it('has what every layer adds, together, whatever their order', () => {
    const book = conditional({
      load: async (ctx: Context<{ readonly id: string }>): Promise<Book> => ({
        id: ctx.params.id,
        version: 1,
      }),
      validators: (_ctx, loaded) => ({ etag: `"${loaded.version}"` }),
    });
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [book, versioning({ supported: [1, 2], default: 1 }), requireAuth()],
      handler: (ctx) => {
        expectTypeOf(ctx.var.entity).toEqualTypeOf<Book>();
        expectTypeOf(ctx.var.apiVersion).toEqualTypeOf<number>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        expectTypeOf(ctx.var.checkedValidators).toEqualTypeOf<Validators | undefined>();
        // @ts-expect-error: no layer adds this name
        ctx.var.order;
        // `var` is what the layers added: the handler reads it, it does not write it.
        // @ts-expect-error: read-only at the route
        ctx.var.entity = { id: 'x', version: 2 };
        return json(200, {});
      },
    });
  });

  it('types layers written inline in use as bound ones, generic factories included', () => {
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [
        conditional({
          load: async (ctx: Context<{ readonly id: string }>): Promise<Book> => ({
            id: ctx.params.id,
            version: 1,
          }),
          validators: (_ctx, loaded) => ({ etag: `"${loaded.version}"` }),
        }),
        requireAuth(),
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.var.entity).toEqualTypeOf<Book>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, {});
      },
    });
    const userOrder = ownedPath({
      param: 'user_id',
      noun: 'user',
      load: async (id): Promise<User | undefined> => ({ id }),
      access: selfOrScope(),
    });
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}',
      use: [requireAuth(), ownershipGuard({ path: userOrder })],
      handler: (ctx) => {
        expectTypeOf(ctx.var.user).toEqualTypeOf<User>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, {});
      },
    });
  });

  it('has an ownedResource record under its noun, and each ownership level under its own', () => {
    const ownBook = ownedResource({
      noun: 'book',
      load: async (id): Promise<Book | undefined> => ({ id, version: 1 }),
      ownerOf: (b) => b.id,
    });
    const userOrder = ownedPath({
      param: 'user_id',
      noun: 'user',
      load: async (id): Promise<User | undefined> => ({ id }),
      access: selfOrScope(),
    }).child({
      param: 'id',
      noun: 'order',
      load: async (id): Promise<Order | undefined> => ({ id, userId: 'u' }),
      belongsTo: (order, user) => order.userId === user.id,
    });
    const guard = ownershipGuard({ path: userOrder });
    defineRoute({
      method: 'GET',
      path: '/books/{id}',
      use: [ownBook],
      handler: (ctx) => {
        expectTypeOf(ctx.var.book).toEqualTypeOf<Book>();
        return json(200, {});
      },
    });
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/orders/{id}',
      use: [guard],
      handler: (ctx) => {
        expectTypeOf(ctx.var.user).toEqualTypeOf<User>();
        expectTypeOf(ctx.var.order).toEqualTypeOf<Order>();
        return json(200, {});
      },
    });
  });

  it('keeps the route inputs where they were: params, query and body come from the codecs', () => {
    defineRoute({
      method: 'GET',
      path: '/books/{id}',
      use: [requireAuth()],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<string>();
        // @ts-expect-error: route inputs are not layer additions
        ctx.var.params;
        return json(200, {});
      },
    });
  });
});
