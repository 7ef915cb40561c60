/**
 * JSON:API 1.1 media type parameters ("Content Negotiation", server responsibilities): `ext` and
 * `profile` in `Content-Type` and `Accept`. The library applies no extension, so any `ext` URI is
 * unsupported: 415 in a body's `Content-Type`, and an `Accept` instance that cannot be answered.
 */
import { fc, test } from '@fast-check/vitest';
import * as t from 'io-ts';
import Negotiator from 'negotiator';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { negotiateResponseType } from '../../src/http/media-types.js';
import { decodeJsonBody } from '../../src/validation/index.js';
import { requestView } from '../support/request.js';

const JSON_API = 'application/vnd.api+json';
const ATOMIC = 'https://jsonapi.org/ext/atomic';
const CURSOR = 'https://jsonapi.org/profiles/ethanresnick/cursor-pagination';

function app() {
  const a = createApp({ logger: { warn: () => {}, error: () => {} } });
  a.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
  a.route({
    method: 'POST',
    path: '/books',
    handler: async (ctx) => {
      const input = await decodeJsonBody(ctx, { codec: t.type({ title: t.string }), type: 'books' });
      return json(201, { data: { type: 'books', id: '1', attributes: input } });
    },
  });
  return a;
}

const get = (accept: string) => app().handle(requestView('GET', '/books', { headers: { accept } }));
const post = (contentType: string) =>
  app().handle(
    requestView('POST', '/books', {
      headers: { 'content-type': contentType },
      body: JSON.stringify({ data: { type: 'books', attributes: { title: 'Invisible Cities' } } }),
    }),
  );

describe('Content-Type with JSON:API 1.1 parameters', () => {
  it('415 for an extension this server does not apply, naming it', async () => {
    const response = await post(`${JSON_API}; ext="${ATOMIC}"`);
    expect(response.status).toBe(415);
    expect(response.json).toMatchObject({
      errors: [{ code: 'unsupported-media-type', source: { header: 'Content-Type' } }],
    });
    expect(JSON.stringify(response.json)).toContain(ATOMIC);
  });

  it('accepts a profile, applied or not (profiles are at the server discretion)', async () => {
    expect((await post(`${JSON_API}; profile="${CURSOR}"`)).status).toBe(201);
  });

  it('415 for any other parameter, as before', async () => {
    expect((await post(`${JSON_API}; foo=bar`)).status).toBe(415);
  });
});

describe('Accept with JSON:API 1.1 parameters', () => {
  it('406 when every JSON:API instance asks for an unsupported extension', async () => {
    expect((await get(`${JSON_API}; ext="${ATOMIC}"`)).status).toBe(406);
  });

  it('406 when every JSON:API instance has a parameter other than ext and profile', async () => {
    expect((await get(`${JSON_API}; foo=bar`)).status).toBe(406);
  });

  it('answers the instance it can: an unrecognised profile is ignored', async () => {
    const response = await get(`${JSON_API}; ext="${ATOMIC}", ${JSON_API}; profile="${CURSOR}"`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_API);
  });

  it('falls back to another acceptable type when JSON:API cannot be answered', async () => {
    const response = await get(`${JSON_API}; ext="${ATOMIC}", application/json;q=0.5`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
  });
});

// Accept values built from parts, so the model reads them without the library's parser.
const member = fc.record({
  range: fc.constantFrom(
    JSON_API,
    'application/json',
    'application/*',
    '*/*',
    'text/html',
    'APPLICATION/VND.API+JSON',
  ),
  ext: fc.option(fc.constantFrom(ATOMIC, `${ATOMIC} urn:x`, ''), { nil: undefined }),
  profile: fc.option(fc.constantFrom(CURSOR, `${CURSOR} urn:y`), { nil: undefined }),
  version: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
  other: fc.option(fc.constantFrom('foo=bar', 'charset=utf-8'), { nil: undefined }),
  q: fc.option(fc.constantFrom('1', '0.5', '0.1', '0'), { nil: undefined }),
});
type Member = typeof member extends fc.Arbitrary<infer M> ? M : never;

const written = (m: Member) =>
  [
    m.range,
    m.ext === undefined ? '' : `; ext="${m.ext}"`,
    m.profile === undefined ? '' : `;profile="${m.profile}"`,
    m.version === undefined ? '' : `; version=${m.version}`,
    m.other === undefined ? '' : `; ${m.other}`,
    m.q === undefined ? '' : `;q=${m.q}`,
  ].join('');

/** The model: JSON:API 1.1's rules over the parts, then negotiator over what stays offered. */
function expected(members: readonly Member[]): string | undefined {
  const instances = members.filter((m) => m.range.toLowerCase() === JSON_API);
  const answerable = instances.some(
    (m) => m.q !== '0' && m.other === undefined && (m.ext === undefined || m.ext.trim() === ''),
  );
  const offers = instances.length > 0 && !answerable ? ['application/json'] : [JSON_API, 'application/json'];
  const weightsOnly = members.map((m) => `${m.range}${m.q === undefined ? '' : `;q=${m.q}`}`).join(', ');
  return new Negotiator({ headers: { accept: weightsOnly } }).mediaType(offers);
}

describe('the response type for any Accept (property)', () => {
  test.prop([fc.array(member, { minLength: 1, maxLength: 4 })])(
    'is what JSON:API 1.1 and RFC 9110 proactive negotiation choose, read apart from the library',
    (members) => {
      expect(negotiateResponseType(members.map(written).join(', '))).toBe(expected(members));
    },
  );
});
