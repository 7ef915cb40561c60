import { fc, test } from '@fast-check/vitest';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { created, json } from '../../src/core/response.js';
import { decodeJsonBody } from '../../src/validation/decode-body.js';
import { versionedRoutes } from '../../src/versioning/routes.js';
import { defineVersions, mapAttributes, type VersionChange } from '../../src/versioning/transforms.js';
import { requestView } from '../support/request.js';

// A user in three versions:
//   v1 { name, email }   v2 { givenName, familyName, email }   v3 { givenName, familyName, emailAddress }
type Attrs = Record<string, unknown>;

const splitName = ({ name, ...rest }: Attrs): Attrs => {
  const full = String(name);
  const space = full.indexOf(' ');
  return { ...rest, givenName: full.slice(0, space), familyName: full.slice(space + 1) };
};
const joinName = ({ givenName, familyName, ...rest }: Attrs): Attrs => ({
  ...rest,
  name: `${String(givenName)} ${String(familyName)}`,
});
const renameKey =
  (from: string, to: string) =>
  ({ [from]: value, ...rest }: Attrs): Attrs => ({ ...rest, [to]: value });

const asAttrs = (value: unknown): Attrs => value as Attrs;
const transforms: Record<number, VersionChange> = {
  1: {
    description: '"name" split into "givenName" and "familyName"',
    request: (body) => splitName(asAttrs(body)),
    response: mapAttributes(joinName, { type: 'users' }),
  },
  2: {
    description: '"email" renamed "emailAddress"',
    request: (body) => renameKey('email', 'emailAddress')(asAttrs(body)),
    response: mapAttributes(renameKey('emailAddress', 'email'), { type: 'users' }),
  },
};
const userVersions = defineVersions({ latest: 3, transforms });

const UserV3 = t.type({ givenName: t.string, familyName: t.string, emailAddress: t.string });

const userDocument = (id: string, attributes: Attrs) => ({
  data: { type: 'users', id, attributes, links: { self: `/users/${id}` } },
  meta: { served: true },
});

const ada: Attrs = { givenName: 'Ada', familyName: 'Lovelace', emailAddress: 'ada@example.com' };

function usersApp(latestUser: Attrs = ada) {
  const app = createApp();
  const routes = [
    ...versionedRoutes({
      method: 'GET',
      path: '/v{version}/users/{id}',
      versioning: { supported: [1, 2, 3], default: 3 },
      changes: userVersions,
      handler: (ctx) => json(200, userDocument(ctx.params.id, latestUser)),
    }),
    ...versionedRoutes({
      method: 'POST',
      path: '/v{version}/users',
      versioning: { supported: [1, 2, 3], default: 3 },
      changes: userVersions,
      handler: async (ctx) => {
        const input = await decodeJsonBody(ctx, {
          codec: userVersions.requestCodec(ctx, UserV3),
          type: 'users',
        });
        return created('/users/1', userDocument('1', input));
      },
    }),
  ];
  for (const route of routes) app.route(route);
  return app;
}

const wordArb = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes(' '));
const latestArb = fc.record({
  givenName: wordArb,
  familyName: fc.string({ minLength: 1, maxLength: 20 }),
  emailAddress: fc.emailAddress(),
});

/** Each version written out by hand: what a client of that version expects. */
function expectedIn(
  version: number,
  user: { givenName: string; familyName: string; emailAddress: string },
): Attrs {
  if (version === 3) return user;
  if (version === 2)
    return { givenName: user.givenName, familyName: user.familyName, email: user.emailAddress };
  return { email: user.emailAddress, name: `${user.givenName} ${user.familyName}` };
}

describe('defineVersions', () => {
  describe('when a handler produces the newest representation', () => {
    test.prop([latestArb, fc.constantFrom(1, 2, 3)])(
      'the response for version k equals the newest response passed down the transforms to k',
      async (user, version) => {
        const response = await usersApp(user).handle(requestView('GET', `/v${version}/users/5`));
        let expected: unknown = userDocument('5', user);
        for (let step = 2; step >= version; step--) expected = transforms[step]!.response!(expected);
        expect(response.json).toEqual(expected);
        expect(response.json).toEqual(userDocument('5', expectedIn(version, user)));
      },
    );

    test.prop([latestArb, fc.constantFrom(1, 2, 3)])(
      'a request written in version k round-trips: upgraded to the newest and answered back in k',
      async (user, version) => {
        const body = expectedIn(version, user);
        expect(userVersions.upgrade(body, version)).toEqual(user);
        const response = await usersApp().handle(
          requestView('POST', `/v${version}/users`, {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
        expect(response.status).toBe(201);
        expect((response.json as { data: { attributes: Attrs } }).data.attributes).toEqual(body);
      },
    );
  });

  it('leaves error responses alone', async () => {
    const app = createApp();
    for (const route of versionedRoutes({
      method: 'GET',
      path: '/v{version}/users/{id}',
      versioning: { supported: [1, 2, 3], default: 3 },
      changes: userVersions,
      handler: () => json(404, { errors: [{ status: '404', title: 'Not Found' }] }),
    }))
      app.route(route);
    const response = await app.handle(requestView('GET', '/v1/users/1'));
    expect(response.json).toEqual({ errors: [{ status: '404', title: 'Not Found' }] });
  });

  it('reports request fields by the latest codec, after upgrading', async () => {
    const response = await usersApp().handle(
      requestView('POST', '/v1/users', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada Lovelace' }),
      }),
    );
    expect(response.status).toBe(400);
  });

  it('lists the versions the chain covers, oldest first', () => {
    expect(userVersions.supported).toEqual([1, 2, 3]);
    expect(defineVersions({ latest: 4, transforms: {} }).supported).toEqual([4]);
  });

  it('refuses a version outside the chain', () => {
    expect(() => userVersions.downgrade({}, 4)).toThrow(RangeError);
    expect(() => userVersions.upgrade({}, 0)).toThrow(RangeError);
  });

  it.each([
    ['a gap in the chain', { latest: 3, transforms: { 1: {} } }, /version 2 has no transform/],
    ['a transform at or above latest', { latest: 2, transforms: { 2: {} } }, /below latest/],
    ['a non-integer key', { latest: 2, transforms: { '1.5': {} } }, /below latest/],
    [
      'a response that is not a function',
      { latest: 2, transforms: { 1: { response: 'down' } } },
      /"response"/,
    ],
    ['a latest that is not a version', { latest: 0, transforms: {} }, /"latest"/],
  ])('throws a TypeError at build time for %s', (_, bad, message) => {
    expect(() => defineVersions(bad as never)).toThrow(TypeError);
    expect(() => defineVersions(bad as never)).toThrow(message);
  });

  it('refuses routes whose supported versions the transforms do not reach', () => {
    expect(() =>
      versionedRoutes({
        method: 'GET',
        path: '/v{version}/users',
        versioning: { supported: [1, 2, 3], default: 3 },
        changes: defineVersions({ latest: 3, transforms: { 2: {} } }),
        handler: () => json(200, {}),
      }),
    ).toThrow(/no transforms lead to version 1/);
  });
});

describe('mapAttributes', () => {
  const upper = mapAttributes((a) => ({ ...a, name: String(a.name).toUpperCase() }), { type: 'users' });

  it('maps every primary resource and included resource of the type, and nothing else', () => {
    const document = {
      data: [
        { type: 'users', id: '1', attributes: { name: 'a' } },
        { type: 'books', id: '2', attributes: { name: 'b' } },
      ],
      included: [{ type: 'users', id: '3', attributes: { name: 'c' } }],
      meta: { name: 'm' },
    };
    expect(upper(document)).toEqual({
      data: [
        { type: 'users', id: '1', attributes: { name: 'A' } },
        { type: 'books', id: '2', attributes: { name: 'b' } },
      ],
      included: [{ type: 'users', id: '3', attributes: { name: 'C' } }],
      meta: { name: 'm' },
    });
    expect(document.data[0]?.attributes.name).toBe('a');
  });

  it('passes documents without resources through', () => {
    expect(upper({ data: null })).toEqual({ data: null });
    expect(upper('text')).toBe('text');
  });
});
