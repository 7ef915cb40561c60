import { toJsonSchema as valibotJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { type App, createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { type AnySchema, type DeclaredRouteDefinition, defineRoute } from '../../src/core/route.js';
import { integer, strictObject, text } from '../../src/validation/codecs.js';
import { numericId } from '../../src/validation/id-codecs.js';
import { queryInteger } from '../../src/validation/query-codecs.js';
import type { JsonSchemaConverter, StandardSchemaV1 } from '../../src/validation/standard-schema.js';
import { recordingLogger } from '../core/send.js';

/**
 * One API, a note store's, declared four times: with io-ts (the library's codecs), zod, valibot and
 * arktype. `POST /notes` takes `{ title, quantity, note? }` (a title of 1 to 200 characters that is
 * not blank, an integer from 1 to 100, a note of at most 500 characters), `GET /notes/{id}` a numeric
 * id, `GET /notes` a `limit` from 1 to 50. The handlers echo what they decoded.
 */
export const LIBRARIES = ['io-ts', 'zod', 'valibot', 'arktype'] as const;
export type Library = (typeof LIBRARIES)[number];

const ID = /^[1-9][0-9]{0,14}$/;
const DIGITS = /^-?\d{1,16}$/;
const NOT_BLANK = /\S/;

const ioTs = {
  body: strictObject(
    { title: text({ maxLength: 200 }), quantity: integer({ min: 1, max: 100 }) },
    { note: text({ maxLength: 500 }) },
  ),
  id: numericId(),
  limit: queryInteger({ min: 1, max: 50 }),
};

const zod = {
  body: z.strictObject({
    title: z.string().min(1).max(200).regex(NOT_BLANK),
    quantity: z.int().min(1).max(100),
    note: z.string().min(1).max(500).regex(NOT_BLANK).optional(),
  }),
  id: z.string().regex(ID).transform(Number),
  limit: z.string().regex(DIGITS).transform(Number).pipe(z.int().min(1).max(50)),
};

const valibot = {
  body: v.strictObject({
    title: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.regex(NOT_BLANK)),
    quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
    note: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500), v.regex(NOT_BLANK))),
  }),
  id: v.pipe(v.string(), v.regex(ID), v.transform(Number)),
  limit: v.pipe(v.string(), v.regex(DIGITS), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(50)),
};

const arktype = {
  body: type({
    title: type('1 <= string <= 200').and(NOT_BLANK),
    quantity: '1 <= number.integer <= 100',
    'note?': type('1 <= string <= 500').and(NOT_BLANK),
    '+': 'reject',
  }),
  id: type(ID).pipe(Number),
  limit: type(DIGITS).pipe(Number, type('1 <= number.integer <= 50')),
};

/** valibot gives its JSON Schema through `@valibot/to-json-schema`. */
export const valibotConverter: JsonSchemaConverter = (schema: v.GenericSchema, { target }) =>
  valibotJsonSchema(schema, { target, typeMode: 'input' });

// The handlers' input types, one per library, are checked in test/core/standard-schema-input.test-d.ts.
function routes(schemas: {
  readonly body: AnySchema;
  readonly id: AnySchema;
  readonly limit: AnySchema;
}): DeclaredRouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/notes',
      body: { codec: schemas.body as StandardSchemaV1<unknown, Record<string, unknown>>, type: 'notes' },
      responses: { 201: { description: 'The note', body: 'resource' } },
      handler: (ctx) => json(201, { data: { type: 'notes', id: '1', attributes: ctx.body } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/notes/{id}',
      params: { id: schemas.id },
      responses: { 200: { description: 'The note', body: 'resource' } },
      handler: (ctx) =>
        json(200, {
          data: { type: 'notes', id: String(ctx.params.id), attributes: { number: ctx.params.id } },
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/notes',
      query: { limit: schemas.limit },
      responses: { 200: { description: 'Notes', body: 'collection' } },
      handler: (ctx) => json(200, { data: [], meta: { limit: ctx.query.limit ?? null } }),
    }),
  ];
}

const SCHEMAS = { 'io-ts': ioTs, zod, valibot, arktype } as const;

/** The API declared with `library`'s schemas. */
export function notesApp(library: Library): App {
  const app = createApp({
    logger: recordingLogger(),
    ...(library === 'valibot' ? { jsonSchema: valibotConverter } : {}),
  });
  for (const route of routes(SCHEMAS[library])) app.route(route);
  return app;
}

export { valibot };
