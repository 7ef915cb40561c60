import { describe, expectTypeOf, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { requireAuth } from '../../src/auth/middleware.js';
import { conditional } from '../../src/caching/conditional.js';
import { json } from '../../src/core/response.js';
import type { Context, Middleware, Principal } from '../../src/http/types.js';
import { oneOf, positiveInteger, strictObject, text } from '../../src/validation/codecs.js';
import { queryInteger } from '../../src/validation/query-codecs.js';

const OrderInput = strictObject({ bookId: positiveInteger }, { note: text({ maxLength: 10 }) });

// Compile-time checks: `npx tsc --noEmit` and vitest's typecheck fail if an expectation does not hold
// or a `@ts-expect-error` line compiles.
describe('declared route types', () => {
  it('types params, query and body from their codecs, without annotations', () => {
    createApp().route({
      method: 'PATCH',
      path: '/users/{user_id}/orders/{id}',
      params: { id: queryInteger({ min: 1 }) },
      query: { page: queryInteger(), status: oneOf(['open', 'done']) },
      body: { codec: OrderInput, type: 'orders', id: 'id' },
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.params.user_id).toEqualTypeOf<string>();
        expectTypeOf(ctx.query.page).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.query.status).toEqualTypeOf<'open' | 'done' | undefined>();
        expectTypeOf(ctx.body.bookId).toEqualTypeOf<number>();
        expectTypeOf(ctx.body.note).toEqualTypeOf<string | undefined>();
        // @ts-expect-error: the body has no such field
        ctx.body.quantity;
        // @ts-expect-error: an undeclared query parameter
        ctx.query.sort;
        // @ts-expect-error: the principal may be absent without auth
        ctx.var.principal.sub;
        return json(200, {});
      },
    });
  });

  it("gives the route's layers its decoded params and query, as its handler", () => {
    createApp().route({
      method: 'GET',
      path: '/users/{user_id}/orders/{id}',
      params: { id: queryInteger({ min: 1 }) },
      query: { page: queryInteger() },
      use: [
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
          expectTypeOf(ctx.params.user_id).toEqualTypeOf<string>();
          expectTypeOf(ctx.query.page).toEqualTypeOf<number | undefined>();
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        return json(200, {});
      },
    });
  });

  it('accepts a layer that reads an input only on a route that decodes it so', () => {
    // A layer bound to a constant says what it reads; a generic one reads nothing in particular.
    const byNumber: Middleware<Context<{ readonly id: number }>> = (_ctx, next) => next();
    const byText: Middleware<Context<{ readonly id: string }>> = (_ctx, next) => next();
    const anyRoute = conditional({ policy: { scope: 'private', maxAge: 0 } });
    createApp().route({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: queryInteger({ min: 1 }) },
      query: { page: queryInteger() },
      use: [byNumber, anyRoute, requireAuth()],
      handler: () => json(200, {}),
    });
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [byText, anyRoute],
      handler: () => json(200, {}),
    });
    createApp().route({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: queryInteger({ min: 1 }) },
      // @ts-expect-error: the route decodes {id} to a number, the layer reads a string
      use: [byText],
      handler: () => json(200, {}),
    });
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      // @ts-expect-error: the route leaves {id} a string, the layer reads a number
      use: [byNumber],
      handler: () => json(200, {}),
    });
  });

  it('leaves an undeclared route on raw strings and no body', () => {
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<string>();
        expectTypeOf(ctx.query).toEqualTypeOf<Readonly<Record<string, string>>>();
        expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
        return json(200, {});
      },
    });
  });

  it('makes the principal certain after auth or requireAuth()', () => {
    createApp()
      .route({
        method: 'GET',
        path: '/me',
        auth: 'principal',
        handler: (ctx) => {
          expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
          return json(200, {});
        },
      })
      .route({
        method: 'GET',
        path: '/profiles/{id}',
        // Written inline: a generic factory's layer is inferred with the rest of the list.
        use: [requireAuth(), conditional({ validators: (ctx) => ({ etag: `"${ctx.params.id}"` }) })],
        handler: (ctx) => {
          expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
          return json(200, {});
        },
      })
      .route({
        method: 'GET',
        path: '/standards',
        auth: { scopes: ['standards:read'] },
        handler: (ctx) => {
          expectTypeOf(ctx.var.principal.scopes).toEqualTypeOf<ReadonlySet<string>>();
          return json(200, {});
        },
      });
  });

  it('refuses declarations that do not fit the path', () => {
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      // @ts-expect-error: the path has no {nope}
      params: { nope: queryInteger() },
      handler: () => json(200, {}),
    });
    createApp().route({
      method: 'PATCH',
      path: '/books/{id}',
      // @ts-expect-error: body.id must name a path parameter
      body: { codec: OrderInput, type: 'books', id: 'book_id' },
      handler: () => json(200, {}),
    });
    createApp().route({
      method: 'GET',
      path: '/books',
      // @ts-expect-error: auth is 'none', 'principal' or a scope list
      auth: 'admin',
      handler: () => json(200, {}),
    });
  });
});

describe('conditional({ load })', () => {
  it('types the loaded entity for validators and handler from what load returns', () => {
    const book = conditional({
      load: async (ctx: Context<{ readonly id: string }>) => ({ id: ctx.params.id, version: 1 }),
      validators: (_ctx, loaded) => {
        expectTypeOf(loaded).toEqualTypeOf<{ id: string; version: number }>();
        return { etag: `"${loaded.version}"` };
      },
    });
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [book],
      handler: (ctx) => {
        expectTypeOf(ctx.var.entity).toEqualTypeOf<{ id: string; version: number }>();
        return json(200, {});
      },
    });
  });
});
