import { describe, expectTypeOf, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { noContent } from '../../src/core/response.js';
import type { ParamsOf } from '../../src/core/route-pattern.js';

// Compile-time checks, run by vitest's typecheck (and `npx tsc --noEmit`): a type error, or a
// `@ts-expect-error` below with no error to expect, fails the test.
describe('typed route parameters', () => {
  it('derives the parameter names from the pattern', () => {
    expectTypeOf<ParamsOf<'/users/{user_id}/orders/{order_id}'>>().toEqualTypeOf<{
      readonly user_id: string;
      readonly order_id: string;
    }>();
    expectTypeOf<ParamsOf<'/books'>>().toEqualTypeOf<{}>();
    expectTypeOf<ParamsOf<string>>().toEqualTypeOf<Record<string, string>>();
  });

  it('types ctx.params in the handler and its middleware', () => {
    createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<string>();
          // @ts-expect-error: the pattern has no {nope}
          ctx.params.nope;
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<string>();
        // @ts-expect-error: the pattern has no {nope}
        ctx.params.nope;
        return noContent();
      },
    });
  });

  it('gives a pattern without parameters no parameters', () => {
    createApp().route({
      method: 'GET',
      path: '/books',
      handler: (ctx) => {
        // @ts-expect-error: /books has no parameters
        ctx.params.id;
        return noContent();
      },
    });
  });
});
