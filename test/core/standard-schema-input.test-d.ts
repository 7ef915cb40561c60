import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../src/app/app.js';
import { requireAuth } from '../../src/auth/middleware.js';
import { conditional } from '../../src/caching/conditional.js';
import { json } from '../../src/core/response.js';
import { defineRoute } from '../../src/core/route.js';
import type { Context, Middleware, Principal } from '../../src/http/types.js';
import { integer, strictObject, text } from '../../src/validation/codecs.js';
import { numericId } from '../../src/validation/id-codecs.js';
import { queryInteger } from '../../src/validation/query-codecs.js';

// The same inputs in each library: a body { title: string; quantity: number; note?: string }, an
// {id} decoded to a number, a `limit` query parameter decoded to a number.
const ID = /^[1-9][0-9]{0,14}$/;
const schemas = {
  ioTs: {
    body: strictObject({ title: text(), quantity: integer() }, { note: text() }),
    id: numericId(),
    limit: queryInteger(),
  },
  zod: {
    body: z.strictObject({ title: z.string(), quantity: z.int(), note: z.string().optional() }),
    id: z.string().regex(ID).transform(Number),
    limit: z.string().transform(Number),
  },
  valibot: {
    body: v.strictObject({ title: v.string(), quantity: v.number(), note: v.optional(v.string()) }),
    id: v.pipe(v.string(), v.transform(Number)),
    limit: v.pipe(v.string(), v.transform(Number)),
  },
  arktype: {
    body: type({ title: 'string', quantity: 'number.integer', 'note?': 'string' }),
    id: type(ID).pipe(Number),
    limit: type('string').pipe(Number),
  },
};

// A layer bound to a constant that reads a numeric {id}, and one that reads a string {id}.
const byNumber: Middleware<Context<{ readonly id: number }>> = (_ctx, next) => next();
const byText: Middleware<Context<{ readonly id: string }>> = (_ctx, next) => next();

type Body = { title: string; quantity: number; note?: string | undefined };

// Compile-time checks, run by `npx tsc --noEmit` and vitest's typecheck; each library's route is written
// out (not in a loop) so each is inferred from its own schemas.
describe('handler input typed from any Standard Schema validator, without a type argument or cast', () => {
  it('io-ts', () => {
    const { body, id, limit } = schemas.ioTs;
    createApp().route({
      method: 'PATCH',
      path: '/notes/{id}',
      params: { id },
      query: { limit },
      body: { codec: body, type: 'notes', id: 'id' },
      use: [
        byNumber,
        requireAuth(),
        conditional({ validators: (ctx) => ({ etag: `"${ctx.params.id}"` }) }),
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
          expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.body.title).toEqualTypeOf<string>();
        expectTypeOf(ctx.body.note).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, {});
      },
    });
  });

  it('zod', () => {
    const { body, id, limit } = schemas.zod;
    createApp().route({
      method: 'PATCH',
      path: '/notes/{id}',
      params: { id },
      query: { limit },
      body: { codec: body, type: 'notes', id: 'id' },
      use: [
        byNumber,
        requireAuth(),
        conditional({ validators: (ctx) => ({ etag: `"${ctx.params.id}"` }) }),
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
          expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.body).toEqualTypeOf<Body>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        // @ts-expect-error: the body has no such field
        ctx.body.author;
        return json(200, {});
      },
    });
    createApp().route({
      method: 'GET',
      path: '/notes/{id}',
      params: { id },
      // @ts-expect-error: the route decodes {id} to a number, the layer reads a string
      use: [byText],
      handler: () => json(200, {}),
    });
  });

  it('valibot', () => {
    const { body, id, limit } = schemas.valibot;
    createApp().route({
      method: 'PATCH',
      path: '/notes/{id}',
      params: { id },
      query: { limit },
      body: { codec: body, type: 'notes', id: 'id' },
      use: [
        byNumber,
        requireAuth(),
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.body.title).toEqualTypeOf<string>();
        expectTypeOf(ctx.body.note).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        return json(200, {});
      },
    });
  });

  it('arktype', () => {
    const { body, id, limit } = schemas.arktype;
    createApp().route({
      method: 'PATCH',
      path: '/notes/{id}',
      params: { id },
      query: { limit },
      body: { codec: body, type: 'notes', id: 'id' },
      use: [
        byNumber,
        requireAuth(),
        conditional({ validators: (ctx) => ({ etag: `"${ctx.params.id}"` }) }),
        async (ctx, next) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
          expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
          return next();
        },
      ],
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.query.limit).toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx.body.title).toEqualTypeOf<string>();
        expectTypeOf(ctx.body.note).toEqualTypeOf<string | undefined>();
        expectTypeOf(ctx.var.principal).toEqualTypeOf<Principal>();
        // @ts-expect-error: the body has no such field
        ctx.body.author;
        return json(200, {});
      },
    });
    createApp().route({
      method: 'GET',
      path: '/notes/{id}',
      params: { id },
      // @ts-expect-error: the route decodes {id} to a number, the layer reads a string
      use: [byText],
      handler: () => json(200, {}),
    });
  });

  it('refuses what is neither an io-ts codec nor a Standard Schema validator', () => {
    createApp().route({
      method: 'GET',
      path: '/notes/{id}',
      // @ts-expect-error: a string is no schema
      params: { id: 'number' },
      // @ts-expect-error: nor is a function
      query: { limit: (text: string) => Number(text) },
      handler: () => json(200, {}),
    });
  });

  it('types a route declared with defineRoute alike', () => {
    defineRoute({
      method: 'POST',
      path: '/notes',
      body: { codec: schemas.zod.body, type: 'notes' },
      handler: (ctx) => {
        expectTypeOf(ctx.body).toEqualTypeOf<Body>();
        return json(201, {});
      },
    });
  });
});
