/**
 * The linter's rules on RateLimit draft-11 fields and JSON:API 1.1 media type parameters: each flags
 * a planted document, and a document that follows them (the library's own, with profiles and QUERY)
 * is clean.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { openApiDocument } from '../../src/openapi/index.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { rateLimit } from '../../src/ratelimit/index.js';

const JSON_API = 'application/vnd.api+json';
const ERROR = { description: 'bad', content: { 'application/problem+json': { schema: {} } } };
const CACHED = { 'Cache-Control': { description: 'c', schema: { type: 'string' } } };
const field = { description: 'f', schema: { type: 'string' } };

/** A document of one GET /books whose 200 is `ok` and whose operation has `extra` members. */
function planted(ok: Record<string, unknown>, extra: Record<string, unknown> = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/books': { get: { responses: { 200: ok, 400: ERROR }, ...extra } } },
  } as unknown as OpenApiDocument;
}

const findings = (document: OpenApiDocument, rule: string) =>
  lintOpenApi(document)
    .filter((f) => f.rule === rule)
    .map((f) => f.message);

describe('ratelimit-fields', () => {
  it('flags fields of an older draft and the X- convention', () => {
    const document = planted({
      description: 'ok',
      headers: {
        ...CACHED,
        'RateLimit-Limit': field,
        'RateLimit-Remaining': field,
        'X-RateLimit-Reset': field,
      },
    });
    expect(findings(document, 'ratelimit-fields')).toEqual([
      '200 documents RateLimit-Limit, a field of an older draft: draft-ietf-httpapi-ratelimit-headers-11 names RateLimit and RateLimit-Policy.',
      '200 documents RateLimit-Remaining, a field of an older draft: draft-ietf-httpapi-ratelimit-headers-11 names RateLimit and RateLimit-Policy.',
      '200 documents X-RateLimit-Reset, a field of an older draft: draft-ietf-httpapi-ratelimit-headers-11 names RateLimit and RateLimit-Policy.',
    ]);
  });

  it('flags RateLimit without RateLimit-Policy, and passes the two together', () => {
    const alone = planted({ description: 'ok', headers: { ...CACHED, RateLimit: field } });
    expect(findings(alone, 'ratelimit-fields')).toEqual([
      '200 documents RateLimit without RateLimit-Policy: a RateLimit item names the policy it reports (draft-ietf-httpapi-ratelimit-headers-11 section 4).',
    ]);
    const both = planted({
      description: 'ok',
      headers: { ...CACHED, RateLimit: field, 'RateLimit-Policy': field },
    });
    expect(findings(both, 'ratelimit-fields')).toEqual([]);
  });

  it('finds nothing in what rateLimit documents', () => {
    const app = createApp({
      use: [rateLimit({ policies: [{ name: 'default', quota: 10, windowSeconds: 60 }] })],
    });
    app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
    const document = openApiDocument(app.routes(), { title: 'Books', version: '1' });
    expect(findings(document, 'ratelimit-fields')).toEqual([]);
  });
});

describe('jsonapi-parameters', () => {
  it('flags a JSON:API media type with a parameter JSON:API 1.1 does not take', () => {
    const document = planted({
      description: 'ok',
      headers: CACHED,
      content: { [`${JSON_API}; charset=utf-8`]: {} },
    });
    expect(findings(document, 'jsonapi-parameters')).toEqual([
      `200 names ${JSON_API} with "charset": JSON:API 1.1 takes only ext and profile.`,
    ]);
  });

  it('flags an ext or profile that is not a list of absolute URIs', () => {
    const document = planted({
      description: 'ok',
      headers: CACHED,
      content: {
        [`${JSON_API}; ext="https://jsonapi.org/ext/atomic atomic"`]: {},
        [`${JSON_API}; profile=""`]: {},
      },
    });
    expect(findings(document, 'jsonapi-parameters')).toEqual([
      '200: ext names "atomic", not an absolute URI (JSON:API 1.1 "Media Type Parameters").',
      '200: profile lists no URI (JSON:API 1.1 "Media Type Parameters").',
    ]);
  });

  it('flags x-jsonapi-profiles that are not URIs, or on an operation that does not answer JSON:API', () => {
    const notUris = planted(
      { description: 'ok', headers: CACHED, content: { [JSON_API]: {} } },
      { 'x-jsonapi-profiles': ['cursor-pagination'] },
    );
    expect(findings(notUris, 'jsonapi-parameters')).toEqual([
      'x-jsonapi-profiles names "cursor-pagination", not an absolute URI (JSON:API 1.1 "Profiles").',
    ]);
    const notJsonApi = planted(
      { description: 'ok', headers: CACHED, content: { 'text/csv': {} } },
      { 'x-jsonapi-profiles': ['https://jsonapi.org/profiles/ethanresnick/cursor-pagination/'] },
    );
    expect(findings(notJsonApi, 'jsonapi-parameters')).toEqual([
      'x-jsonapi-profiles names profiles, but no success response of the operation is JSON:API.',
    ]);
  });

  it('passes ext and profile URIs, and the profiles a route declares', () => {
    const declared = planted({
      description: 'ok',
      headers: CACHED,
      content: { [`${JSON_API}; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/p"`]: {} },
    });
    expect(findings(declared, 'jsonapi-parameters')).toEqual([]);
    const app = createApp();
    app.route({
      method: 'GET',
      path: '/books',
      profiles: ['https://jsonapi.org/profiles/ethanresnick/cursor-pagination/'],
      handler: () => json(200, { data: [] }),
    });
    const document = openApiDocument(app.routes(), { title: 'Books', version: '1' });
    expect(document.paths?.['/books']?.get).toHaveProperty('x-jsonapi-profiles');
    expect(findings(document, 'jsonapi-parameters')).toEqual([]);
  });
});
