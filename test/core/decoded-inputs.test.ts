/**
 * A declared route's decoded inputs live in one place, `ctx.params` and `ctx.query`: decoded once,
 * before the route's middleware, and read alike by its layers (hooks or `(ctx, next)`) and its handler,
 * on the way in and on the way out.
 */
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { defineMiddleware } from '../../src/core/compose.js';
import { json } from '../../src/core/response.js';
import type { Context, Middleware } from '../../src/http/types.js';
import { ownedPath, ownershipGuard } from '../../src/ownership/index.js';
import { decodeQuery } from '../../src/validation/decode-query.js';
import { queryInteger } from '../../src/validation/query-codecs.js';
import { send } from './send.js';

/** A numeric id codec that counts its decodes. */
function countingId() {
  const counter = { decodes: 0 };
  const positive = queryInteger({ min: 1 });
  const codec = new t.Type<number, string, unknown>(
    'a numeric id',
    positive.is,
    (input, context) => {
      counter.decodes++;
      return positive.validate(input, context);
    },
    String,
  );
  return { codec, counter };
}

describe('decoded route inputs', () => {
  it('are what every layer and the handler read, on the way in and out, decoded once', async () => {
    const { codec, counter } = countingId();
    const seen: [string, unknown, unknown][] = [];
    const hooked = defineMiddleware<Context<{ readonly id: number }, { readonly size?: number }>>({
      before: (ctx) => {
        seen.push(['hook before', ctx.params.id, ctx.query.size]);
        return undefined;
      },
      after: (ctx, response) => {
        seen.push(['hook after', ctx.params.id, ctx.query.size]);
        return response;
      },
    });
    const wrapping: Middleware<Context<{ readonly id: number }, { readonly size?: number }>> = async (
      ctx,
      next,
    ) => {
      seen.push(['wrapper before', ctx.params.id, ctx.query.size]);
      const response = await next();
      seen.push(['wrapper after', ctx.params.id, ctx.query.size]);
      return response;
    };
    const app = createApp().route({
      method: 'GET',
      path: '/orders/{id}',
      params: { id: codec },
      query: { size: queryInteger({ min: 1 }) },
      use: [hooked, wrapping],
      handler: (ctx) => {
        seen.push(['handler', ctx.params.id, ctx.query.size]);
        return json(200, { meta: { id: ctx.params.id } });
      },
    });
    const sent = await send(app, 'GET', '/orders/7?size=3');
    expect(sent.status).toBe(200);
    expect(sent.body.meta).toEqual({ id: 7 });
    expect(seen).toEqual([
      ['hook before', 7, 3],
      ['wrapper before', 7, 3],
      ['handler', 7, 3],
      ['wrapper after', 7, 3],
      ['hook after', 7, 3],
    ]);
    expect(counter.decodes).toBe(1);
  });

  it('leave a route without codecs on the raw strings', async () => {
    const seen: unknown[] = [];
    const app = createApp().route({
      method: 'GET',
      path: '/books/{id}',
      use: [
        async (ctx, next) => {
          seen.push(ctx.params.id, ctx.query.q);
          return next();
        },
      ],
      handler: (ctx) => json(200, { meta: { id: ctx.params.id, q: ctx.query.q ?? null } }),
    });
    const sent = await send(app, 'GET', '/books/007?q=x');
    expect(sent.body.meta).toEqual({ id: '007', q: 'x' });
    expect(seen).toEqual(['007', 'x']);
  });

  it('leave the raw query readable: queryAll, and decodeQuery, which reads the request alone', async () => {
    const seen: unknown[] = [];
    const app = createApp().route({
      method: 'GET',
      path: '/books',
      query: { size: queryInteger({ min: 1 }) },
      handler: (ctx) => {
        seen.push(ctx.query, ctx.queryAll('size'), decodeQuery(ctx, { size: queryInteger({ min: 1 }) }));
        return json(200, { meta: {} });
      },
    });
    expect((await send(app, 'GET', '/books?size=3')).status).toBe(200);
    expect(seen).toEqual([{ size: 3 }, ['3'], { size: 3 }]);
  });

  it("reach an ownership path's loaders decoded, and its 404 names the id as text", async () => {
    const notes = new Map([[7, { id: 7, ownerId: 'alice' }]]);
    const loaded: unknown[] = [];
    const userNote = ownedPath({
      param: 'user_id',
      noun: 'user',
      load: (id) => ({ id }),
      access: (principal, parentId) => principal.sub === parentId,
    }).child({
      param: 'id',
      noun: 'note',
      load: (id: number) => {
        loaded.push(id);
        return notes.get(id);
      },
      belongsTo: (note, user) => note.ownerId === user.id,
    });
    const signedIn: Middleware = (ctx, next) => {
      ctx.var.principal = { sub: 'alice', scopes: new Set(), claims: {} };
      return next();
    };
    const app = createApp({ use: [signedIn] }).route({
      method: 'GET',
      path: '/users/{user_id}/notes/{id}',
      params: { id: queryInteger({ min: 1 }) },
      use: [ownershipGuard({ path: userNote })],
      handler: (ctx) => json(200, { meta: { note: ctx.var.note.id } }),
    });
    expect((await send(app, 'GET', '/users/alice/notes/7')).body.meta).toEqual({ note: 7 });
    const missing = await send(app, 'GET', '/users/alice/notes/8');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].detail).toBe('No note with id "8".');
    expect(loaded).toEqual([7, 8]);
  });
});
