import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { conventionProperties, discover, fetchTarget, subjectOf } from '../../src/testing/index.js';

const item = (extra: object = {}) => ({ responses: { 200: { description: 'it' } }, ...extra });

/** A document in plain OpenAPI 3.1 terms, as another generator would write it. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'notes', version: '1' },
  security: [{ bearer: [] }],
  paths: {
    '/notes': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['title', 'stars'],
                properties: {
                  title: { type: 'string', maxLength: 40 },
                  stars: { type: 'integer', minimum: 1, maximum: 5 },
                  tag: { type: 'string' },
                },
              },
              examples: { first: { value: { title: 'Groceries', stars: 5 } } },
            },
          },
        },
        responses: { 201: { description: 'made' } },
      },
    },
    '/notes/{id}': {
      get: item(),
      patch: {
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { stars: { type: 'integer', minimum: 1, maximum: 5 } } },
            },
          },
        },
        responses: { 200: { description: 'changed' } },
      },
    },
    '/people/{person}/notes/{note}': { get: item() },
    '/public-pages': {
      post: {
        security: [],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { 201: { description: 'made' } },
      },
    },
    '/public-pages/{id}': { get: item({ security: [] }) },
    '/v3/notes/{id}': { get: item({ deprecated: true }) },
    '/things': {
      get: item({
        parameters: [
          { name: 'Accept', in: 'header', schema: { enum: ['application/vnd.api+json;version=4'] } },
        ],
        responses: { 200: { description: 'x', content: { 'application/vnd.api+json; version=5': {} } } },
      }),
    },
    '/old/{id}': {
      get: {
        responses: {
          308: {
            description: 'moved',
            headers: { Location: { schema: { type: 'string', examples: ['/notes/{id}'] } } },
          },
        },
      },
    },
    '/older': { get: { responses: { 301: { description: 'moved' } } } },
  },
} as unknown as OpenApiDocument;

describe('what the kit reads from a document', () => {
  const found = discover(DOCUMENT);

  it('creates from the example, another body one member apart, an update that changes, nested paths', () => {
    const notes = found.creates.find((c) => c.path === '/notes')!;
    expect(notes.body).toEqual({ title: 'Groceries', stars: 5 });
    expect(notes.otherBody).toEqual({ title: 'Groceriesb', stars: 5 });
    // Nothing is required of a PATCH body: its first member, at its simplest (the body has 5 stars).
    expect(notes.update).toEqual({ stars: 1 });
    expect(notes.nested?.('n1', 'alice')).toEqual(['/people/alice/notes/n1']);
  });

  it('the simplest valid body when the document has no example', () => {
    expect(found.creates.find((c) => c.path === '/public-pages')!.body).toEqual({});
  });

  it('versions from /vN paths and version= media type parameters, and moved URLs from 301/308', () => {
    expect(found.versions).toEqual(['3', '4', '5']);
    expect(found.moved).toEqual([{ from: '/old/{id}', to: '/notes/{id}' }, { from: '/older' }]);
  });

  it('runs ownership only on what the document protects', () => {
    const names = conventionProperties({
      target: fetchTarget(() => new Response(null)),
      document: DOCUMENT,
      principals: { a: 'a', b: 'b' },
    })
      .filter((p) => p.id === 'ownership')
      .map((p) => p.name);
    expect(names).toEqual(['what POST /notes makes for one user is invisible to another, as if missing']);
  });

  it("reads each principal's sub from its JWT, and nothing from another token", async () => {
    const jwt = await new SignJWT({ scope: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice@example.com')
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(subjectOf(jwt)).toBe('alice@example.com');
    expect(subjectOf('opaque-token')).toBeUndefined();
    expect(subjectOf('a.b.c')).toBeUndefined();
  });
});
