/**
 * `ctx.var`: what each primitive adds to a request, read by the handler under one name, each value
 * written once; a layer's private keys (`contextKey`) never show in it.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { authenticate, hs256Verifier, requireAuth, signHs256Token } from '../../src/auth/index.js';
import { conditional } from '../../src/caching/index.js';
import { RequestContext } from '../../src/core/context.js';
import { json } from '../../src/core/response.js';
import { contextKey, type Middleware } from '../../src/http/types.js';
import { ownedPath, ownedResource, ownershipGuard, selfOrScope } from '../../src/ownership/index.js';
import { versioning } from '../../src/versioning/index.js';
import { requestView } from '../support/request.js';
import { send } from './send.js';

const SECRET = 'request-variables-test-secret-32-bytes!!';
const verifier = hs256Verifier({ secret: SECRET });
const bearer = async (sub: string) => ({ authorization: `Bearer ${await signHs256Token(SECRET, { sub })}` });
const quiet = { error() {}, warn() {} };

interface Note {
  readonly id: string;
  readonly ownerId: string;
  readonly version: number;
}
const notes = new Map<string, Note>([['n1', { id: 'n1', ownerId: 'alice', version: 3 }]]);

describe('ctx.var', () => {
  it('is one object per request, apart from the private state under context keys', () => {
    const ctx = new RequestContext(requestView('GET', '/'), 'r1', quiet);
    const PRIVATE = contextKey<string>('a layer of its own');
    ctx.set(PRIVATE, 'kept');
    expect(ctx.get(PRIVATE)).toBe('kept');
    expect(Object.keys(ctx.var)).toEqual([]);
    const principal = { sub: 'alice', scopes: new Set<string>(), claims: {} };
    ctx.var.principal = principal;
    expect(ctx.var.principal).toBe(principal);
    expect(ctx.get(PRIVATE)).toBe('kept');
  });

  it('hands the handler the principal, the loaded entity, the checked validators and the version, each written once', async () => {
    const seen: Record<string, unknown>[] = [];
    const writes: string[] = [];
    // Every write to this request's `ctx.var`, by name.
    const countWrites: Middleware = (ctx, next) => {
      const variables: Record<string, unknown> = {};
      const counted = new Proxy(variables, {
        set: (target, name, value) => {
          writes.push(String(name));
          target[name as string] = value;
          return true;
        },
      });
      Object.defineProperty(ctx, 'var', { value: counted });
      return next();
    };
    const ownNote = ownedResource({
      noun: 'note',
      load: (id) => notes.get(id),
      ownerOf: (note) => note.ownerId,
    });
    const checked = conditional({
      load: ownNote.load,
      validators: (_ctx, note) => ({ etag: `"${note.version}"` }),
    });
    const app = createApp({ use: [countWrites, authenticate({ verifier })], logger: quiet }).route({
      method: 'GET',
      path: '/notes/{id}',
      use: [requireAuth(), versioning({ supported: [1, 2], default: 2 }), checked],
      handler: (ctx) => {
        seen.push({
          principal: ctx.var.principal.sub,
          entity: ctx.var.entity,
          checkedValidators: ctx.var.checkedValidators,
          apiVersion: ctx.var.apiVersion,
        });
        return json(200, { meta: {} });
      },
    });
    const sent = await send(app, 'GET', '/notes/n1', { headers: await bearer('alice') });
    expect(sent.status).toBe(200);
    expect(seen).toEqual([
      { principal: 'alice', entity: notes.get('n1'), checkedValidators: { etag: '"3"' }, apiVersion: 2 },
    ]);
    // The note once, as `entity` (the loader of `conditional`), not also under its noun.
    expect(writes.sort()).toEqual(['apiVersion', 'checkedValidators', 'entity', 'principal']);
    // Someone else's note: the same 404 as a missing one, and the handler never runs.
    expect((await send(app, 'GET', '/notes/n1', { headers: await bearer('bob') })).status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it('adds an owned resource used as a layer under its noun, once', async () => {
    const ownNote = ownedResource({
      noun: 'note',
      load: (id) => notes.get(id),
      ownerOf: (note) => note.ownerId,
    });
    const seen: unknown[] = [];
    const app = createApp({ use: [authenticate({ verifier })], logger: quiet }).route({
      method: 'GET',
      path: '/notes/{id}',
      use: [ownNote],
      handler: (ctx) => {
        seen.push(ctx.var.note, Object.keys(ctx.var).sort());
        return json(200, { meta: {} });
      },
    });
    expect((await send(app, 'GET', '/notes/n1', { headers: await bearer('alice') })).status).toBe(200);
    expect(seen).toEqual([notes.get('n1'), ['note', 'principal']]);
  });

  it('adds an ownership path level by level under its nouns', async () => {
    const users = new Map([['alice', { id: 'alice' }]]);
    const userNote = ownedPath({
      param: 'user_id',
      noun: 'user',
      load: (id) => users.get(id),
      access: selfOrScope({ scopes: ['notes:read'] }),
    }).child({
      param: 'id',
      noun: 'note',
      load: (id) => notes.get(id),
      belongsTo: (note, user) => note.ownerId === user.id,
    });
    const seen: unknown[] = [];
    const guard = ownershipGuard({ path: userNote });
    const app = createApp({ use: [authenticate({ verifier })], logger: quiet }).route({
      method: 'GET',
      path: '/users/{user_id}/notes/{id}',
      use: [guard],
      handler: (ctx) => {
        seen.push([ctx.var.user, ctx.var.note]);
        return json(200, { meta: {} });
      },
    });
    expect((await send(app, 'GET', '/users/alice/notes/n1', { headers: await bearer('alice') })).status).toBe(
      200,
    );
    expect(seen).toEqual([[users.get('alice'), notes.get('n1')]]);
  });

  it('refuses two levels of one path under the same name', () => {
    const parent = ownedPath({ param: 'a', noun: 'item', load: () => ({}), access: () => true });
    expect(() => parent.child({ param: 'b', noun: 'item', load: () => ({}), belongsTo: () => true })).toThrow(
      /already named "item"/,
    );
  });
});
