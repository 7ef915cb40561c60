import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { conditional } from '../../src/caching/index.js';
import { json } from '../../src/core/response.js';
import { defineVersions, mapAttributes, versionedPath, versionedRoutes } from '../../src/versioning/index.js';
import { requestView } from '../support/request.js';

describe('versioned routes whose middleware hashes the body for an ETag', () => {
  const changes = defineVersions({
    latest: 2,
    transforms: {
      1: {
        response: mapAttributes(
          ({ givenName, familyName, ...rest }) => ({ ...rest, name: `${givenName} ${familyName}` }),
          {
            type: 'users',
          },
        ),
      },
    },
  });
  const app = createApp();
  for (const route of versionedRoutes({
    method: 'GET',
    path: '/v{version}/users/{id}',
    versioning: { supported: [1, 2], default: 1 },
    changes,
    use: [conditional({ policy: { scope: 'private', noCache: true } })],
    handler: (ctx) =>
      json(200, {
        data: { type: 'users', id: ctx.params.id, attributes: { givenName: 'A', familyName: 'B' } },
      }),
  }))
    app.route(route);

  it('still sends each version its own representation, and hashes that one', async () => {
    const v1 = await app.handle(requestView('GET', '/v1/users/1'));
    const v2 = await app.handle(requestView('GET', '/v2/users/1'));
    const body = (r: typeof v1) => JSON.parse(Buffer.from(r.raw as Uint8Array).toString('utf8'));
    expect(body(v1).data.attributes).toEqual({ name: 'A B' });
    expect(body(v2).data.attributes).toEqual({ givenName: 'A', familyName: 'B' });
    expect(v1.headers.etag).not.toBe(v2.headers.etag);
  });
});

describe('versionedPath: links in the version the request was asked by', () => {
  const app = createApp();
  for (const route of versionedRoutes({
    method: 'GET',
    path: '/api/v{version}/users/{id}',
    unversioned: true,
    versioning: { supported: [1, 2, 3], default: 1 },
    handler: (ctx) => json(200, { links: { self: versionedPath(ctx, `/api/users/${ctx.params.id}`) } }),
  }))
    app.route(route);
  app.route({
    method: 'GET',
    path: '/plain',
    handler: (ctx) => json(200, { links: { self: versionedPath(ctx, '/api/users/7') } }),
  });

  it.each([
    ['/api/v1/users/7', '/api/v1/users/7'],
    ['/api/v3/users/7', '/api/v3/users/7'],
    ['/api/users/7', '/api/users/7'],
    ['/plain', '/api/users/7'],
  ])('%s links to %s', async (path, self) => {
    const response = await app.handle(requestView('GET', path));
    expect(response.status).toBe(200);
    expect((response.json as { links: { self: string } }).links.self).toBe(self);
  });
});
