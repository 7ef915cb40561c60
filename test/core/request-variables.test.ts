/**
 * `ctx.var`: what each primitive adds to a request, read by the handler under one name, and the
 * deprecated reads of the same values (`ctx.principal`, `ctx.entity`, `layer.entity(ctx)`,
 * `path.records(ctx)`, `ctx.get(API_VERSION)`, `ctx.get(CHECKED_VALIDATORS)`), kept for one release.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { authenticate, hs256Verifier, requireAuth, signHs256Token } from '../../src/auth/index.js';
import { CHECKED_VALIDATORS, conditional } from '../../src/caching/index.js';
import { RequestContext } from '../../src/core/context.js';
import { json } from '../../src/core/response.js';
import { ownedPath, ownedResource, ownershipGuard, selfOrScope } from '../../src/ownership/index.js';
import { API_VERSION, versioning } from '../../src/versioning/index.js';
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
  it('is made only when a layer touches it, and the deprecated fields read and write through it', () => {
    const ctx = new RequestContext(requestView('GET', '/'), 'r1', quiet);
    expect(ctx.principal).toBeUndefined();
    expect(ctx.entity).toBeUndefined();
    const principal = { sub: 'alice', scopes: new Set<string>(), claims: {} };
    ctx.principal = principal;
    expect(ctx.var.principal).toBe(principal);
    ctx.var.entity = 'loaded';
    expect(ctx.entity).toBe('loaded');
    ctx.entity = 'replaced';
    expect(ctx.var.entity).toBe('replaced');
  });

  it('hands the handler the principal, the loaded entity, the checked validators and the version', async () => {
    const seen: Record<string, unknown>[] = [];
    const ownNote = ownedResource({
      noun: 'note',
      load: (id) => notes.get(id),
      ownerOf: (note) => note.ownerId,
    });
    const checked = conditional({
      load: ownNote.load,
      validators: (_ctx, note) => ({ etag: `"${note.version}"` }),
    });
    const app = createApp({ use: [authenticate({ verifier })], logger: quiet }).route({
      method: 'GET',
      path: '/notes/{id}',
      use: [requireAuth(), versioning({ supported: [1, 2], default: 2 }), checked],
      handler: (ctx) => {
        seen.push({
          principal: ctx.var.principal.sub,
          entity: ctx.var.entity,
          // The owner check ran in `ownNote.load`, which adds the record under its noun too.
          note: (ctx.var as Record<string, unknown>).note,
          checkedValidators: ctx.var.checkedValidators,
          apiVersion: ctx.var.apiVersion,
          // The deprecated reads of the same values.
          oldPrincipal: ctx.principal.sub,
          oldEntity: ctx.entity,
          layerEntity: checked.entity(ctx),
          resourceEntity: ownNote.entity(ctx),
          oldVersion: ctx.get(API_VERSION),
          oldValidators: ctx.get(CHECKED_VALIDATORS),
        });
        return json(200, { meta: {} });
      },
    });
    const sent = await send(app, 'GET', '/notes/n1', { headers: await bearer('alice') });
    expect(sent.status).toBe(200);
    const note = notes.get('n1');
    expect(seen).toEqual([
      {
        principal: 'alice',
        entity: note,
        note,
        checkedValidators: { etag: '"3"' },
        apiVersion: 2,
        oldPrincipal: 'alice',
        oldEntity: note,
        layerEntity: note,
        resourceEntity: note,
        oldVersion: 2,
        oldValidators: { etag: '"3"' },
      },
    ]);
    // Someone else's note: the same 404 as a missing one, and the handler never runs.
    expect((await send(app, 'GET', '/notes/n1', { headers: await bearer('bob') })).status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it('adds an ownership path level by level under its nouns, as path.records(ctx) and path.keys still read them', async () => {
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
        seen.push([ctx.var.user, ctx.var.note], userNote.records(ctx), [
          ctx.get(userNote.keys[0]),
          ctx.get(userNote.keys[1]),
        ]);
        return json(200, { meta: {} });
      },
    });
    expect((await send(app, 'GET', '/users/alice/notes/n1', { headers: await bearer('alice') })).status).toBe(
      200,
    );
    expect(seen).toEqual([
      [users.get('alice'), notes.get('n1')],
      [users.get('alice'), notes.get('n1')],
      [users.get('alice'), notes.get('n1')],
    ]);
  });

  it('refuses two levels of one path under the same name', () => {
    const parent = ownedPath({ param: 'a', noun: 'item', load: () => ({}), access: () => true });
    expect(() => parent.child({ param: 'b', noun: 'item', load: () => ({}), belongsTo: () => true })).toThrow(
      /already named "item"/,
    );
  });
});
