/**
 * JSON:API 1.1 "Profiles": a route declares the profiles its JSON:API answers apply; they are named
 * in the `profile` media type parameter of `Content-Type`, and the API description says which
 * profiles each operation applies (`x-jsonapi-profiles`, as OpenAPI has no field for it).
 */
import { parseItem } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { send } from './send.js';

const CURSOR = 'https://jsonapi.org/profiles/ethanresnick/cursor-pagination/';
const OTHER = 'https://example.com/profiles/timestamps';

function app() {
  const a = createApp({ logger: { warn: () => {}, error: () => {} } });
  a.route({
    method: 'GET',
    path: '/books',
    profiles: [CURSOR, OTHER],
    responses: { 200: { description: 'A page of books', body: 'meta' } },
    handler: () => json(200, { meta: { total: 0 } }),
  });
  a.route({ method: 'GET', path: '/authors', handler: () => json(200, { data: [] }) });
  return a;
}

describe('profiles a route applies (JSON:API 1.1 "Profiles")', () => {
  it('names them in the profile parameter of a JSON:API Content-Type, space-separated', async () => {
    const answer = await send(app(), 'GET', '/books');
    const [type, parameters] = parseItem(answer.headers['content-type']!.replace('; ', ';'));
    expect(String(type)).toBe('application/vnd.api+json');
    expect(String(parameters.get('profile')).split(' ')).toEqual([CURSOR, OTHER]);
    expect(answer.headers.vary).toBe('Accept');
  });

  it('names none on plain JSON, on an error, or on a route that applies none', async () => {
    const asJson = await send(app(), 'GET', '/books', { headers: { accept: 'application/json' } });
    expect(asJson.headers['content-type']).toBe('application/json');
    expect((await send(app(), 'GET', '/authors')).headers['content-type']).toBe('application/vnd.api+json');
    const refused = await send(app(), 'GET', '/books', { headers: { accept: 'text/csv' } });
    expect(refused.status).toBe(406);
    expect(refused.headers['content-type']).toBe('application/vnd.api+json');
  });

  it('says in the API description which profiles each operation applies', () => {
    const document = openApiDocument(app().routes(), { title: 't', version: '1' });
    expect(document.paths?.['/books']?.get?.['x-jsonapi-profiles']).toEqual([CURSOR, OTHER]);
    expect(document.paths?.['/authors']?.get?.['x-jsonapi-profiles']).toBeUndefined();
  });

  it.each([
    [[]],
    [['cursor-pagination']],
    [['https://example.com/a b']],
    [['https://example.com/"q"']],
    ['https://example.com/p'],
  ])('refuses profiles %j at registration with a TypeError naming the route', (profiles) => {
    expect(() =>
      createApp().route({
        method: 'GET',
        path: '/books',
        profiles: profiles as never,
        handler: () => json(200, { data: [] }),
      }),
    ).toThrow(/GET \/books.*profiles/);
  });
});
