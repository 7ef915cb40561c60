import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { authenticate, hs256Verifier, requireAuth, signHs256Token } from '../../src/auth/index.js';
import { conditional, versionEtag } from '../../src/caching/index.js';
import { json } from '../../src/core/response.js';
import type { ApiResponse } from '../../src/http/types.js';
import { ownedRecordFact, ownedResource } from '../../src/ownership/index.js';
import { requestView } from '../support/request.js';

const SECRET = 'owned-resource-test-secret-of-32-bytes!';

interface Note {
  readonly id: string;
  readonly ownerId: string;
  readonly version: number;
}

/** An app serving `/notes/{id}` from `notes`, guarded both ways, counting every load. */
function appFor(notes: readonly Note[]) {
  const byId = new Map(notes.map((note) => [note.id, note]));
  const loads = { count: 0 };
  const ownNote = ownedResource({
    noun: 'note',
    load: async (id) => {
      loads.count++;
      return byId.get(id);
    },
    ownerOf: (note: Note) => note.ownerId,
  });
  const checked = conditional({
    load: ownNote.load,
    validators: (_ctx, note) => ({ etag: versionEtag(note.version) }),
  });
  const app = createApp({ use: [authenticate({ verifier: hs256Verifier({ secret: SECRET }) })] });
  app.route({
    method: 'GET',
    path: '/notes/{id}',
    use: [ownNote],
    handler: (ctx) => json(200, { meta: { id: ctx.var.note.id } }),
  });
  app.route({
    method: 'PUT',
    path: '/drafts/{id}',
    use: [checked],
    handler: (ctx) => json(200, { meta: { version: ctx.var.entity.version } }),
  });
  app.route({ method: 'GET', path: '/plain', use: [requireAuth()], handler: () => json(200, { meta: {} }) });
  return { app, loads };
}

const tokens = new Map<string, string>();
async function bearer(sub: string): Promise<string> {
  let token = tokens.get(sub);
  if (token === undefined) {
    token = `Bearer ${await signHs256Token(SECRET, { sub })}`;
    tokens.set(sub, token);
  }
  return token;
}

async function send(
  app: ReturnType<typeof appFor>['app'],
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return app.handle(requestView(method, path, { headers }));
}

/** What a caller can observe of a response, without the per-request id and the clock (`Date`). */
function observable(response: ApiResponse) {
  const { 'x-request-id': _id, date: _date, ...headers } = response.headers;
  return { status: response.status, headers, body: response.json };
}

describe('ownedResource', () => {
  const notes: Note[] = [
    { id: 'n1', ownerId: 'u1', version: 3 },
    { id: 'n2', ownerId: 'u2', version: 1 },
  ];

  it("hands the owner's record to the handler, loaded once", async () => {
    const { app, loads } = appFor(notes);
    const response = await send(app, 'GET', '/notes/n1', { authorization: await bearer('u1') });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ meta: { id: 'n1' } });
    expect(loads.count).toBe(1);
  });

  it("answers another user's record with the 404 of an absent one", async () => {
    const { app } = appFor(notes);
    const token = await bearer('u1');
    const foreign = await send(app, 'GET', '/notes/n2', { authorization: token });
    const absent = await send(app, 'GET', '/notes/n2', { authorization: await bearer('u3') });
    expect(foreign.status).toBe(404);
    expect(observable(foreign)).toEqual(observable(absent));
    expect(JSON.stringify(foreign.json)).toContain('No note with id \\"n2\\".');
  });

  it('answers 401 without a principal, as requireAuth does, loading nothing', async () => {
    const { app, loads } = appFor(notes);
    const guarded = await send(app, 'GET', '/notes/n1');
    const plain = await send(app, 'GET', '/plain');
    expect(guarded.status).toBe(401);
    expect(guarded.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(guarded.json).toEqual(plain.json);
    expect(loads.count).toBe(0);
  });

  it('checks the owner before any precondition: no 412 or 428 about a foreign record', async () => {
    const { app } = appFor(notes);
    const token = await bearer('u1');
    const foreign412 = await send(app, 'PUT', '/drafts/n2', { authorization: token, 'if-match': '"x"' });
    const foreign428 = await send(app, 'PUT', '/drafts/n2', { authorization: token });
    expect(foreign412.status).toBe(404);
    expect(foreign428.status).toBe(404);
    const own412 = await send(app, 'PUT', '/drafts/n1', { authorization: token, 'if-match': '"x"' });
    expect(own412.status).toBe(412);
    const own = await send(app, 'PUT', '/drafts/n1', {
      authorization: token,
      'if-match': versionEtag(3),
    });
    expect(own.json).toEqual({ meta: { version: 3 } });
  });

  it('rejects a bad configuration at start-up, naming the option', () => {
    const load = () => undefined;
    const ownerOf = () => 'x';
    expect(() => ownedResource({ param: 'a-b' as 'id', load, ownerOf })).toThrow(/param/);
    expect(() => ownedResource({ load: 1 as never, ownerOf })).toThrow(/load/);
    expect(() => ownedResource({ load, ownerOf: undefined as never })).toThrow(/ownerOf/);
    expect(() => ownedResource({ load, ownerOf, noun: '' })).toThrow(/noun/);
    expect(() => ownedResource({ load, ownerOf, realm: 'a"b' })).toThrow(/realm/);
  });
});

describe('ownedRecordFact', () => {
  const principal = (sub: string) => ({ sub, scopes: new Set<string>(), claims: {} });
  test.prop([fc.option(fc.string(), { nil: undefined }), fc.string(), fc.string()])(
    'is absent without a record, present for the owner, foreign otherwise',
    (owner, sub, _noise) => {
      const record = owner === undefined ? undefined : { owner };
      const fact = ownedRecordFact(record, principal(sub), (r) => r.owner);
      const expected = owner === undefined ? 'absent' : owner === sub ? 'present' : 'foreign';
      expect(fact).toBe(expected);
    },
  );
});

describe('ownedResource, property', () => {
  const ids = fc.constantFrom('1', '2', '3', '4', 'x');
  const users = fc.constantFrom('u1', 'u2', 'u3');
  // Any store, any caller, any id: a foreign record's answer is byte for byte the answer the same
  // caller gets once that record is removed from the store.
  test.prop([fc.dictionary(ids, users), users, ids, fc.constantFrom('GET /notes', 'PUT /drafts')])(
    '"foreign" and "absent" look the same',
    async (owners, caller, id, route) => {
      const store = Object.entries(owners).map(([noteId, ownerId]) => ({ id: noteId, ownerId, version: 1 }));
      const [method, prefix] = route.split(' ') as [string, string];
      const token = await bearer(caller);
      const withRecord = await send(appFor(store).app, method, `${prefix}/${id}`, { authorization: token });
      const without = store.filter((note) => note.id !== id);
      const withoutRecord = await send(appFor(without).app, method, `${prefix}/${id}`, {
        authorization: token,
      });
      const owner = owners[id];
      if (owner === caller) {
        expect(withRecord.status).not.toBe(404);
      } else {
        expect(observable(withRecord)).toEqual(observable(withoutRecord));
        expect(withRecord.status).toBe(404);
      }
    },
  );
});
