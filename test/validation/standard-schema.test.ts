import { rmSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { openApiDocument } from '../../src/openapi/document.js';
import { decodeJsonBody, decodeJsonBytes } from '../../src/validation/decode-body.js';
import { decodeQuery } from '../../src/validation/decode-query.js';
import { schemaCodec, validateSchema } from '../../src/validation/standard-schema.js';
import { recordingLogger, type Sent, send } from '../core/send.js';
import { compileBlocks, writeBlocks } from '../support/doc-blocks.js';
import { BLOCKS, LIBRARIES, notesApp, valibotConverter } from './four-validators.js';

const BARE = { 'content-type': 'application/json' };
const DOCUMENT = { 'content-type': 'application/vnd.api+json' };
const apps = LIBRARIES.map((library) => [library, notesApp(library)] as const);

/** What a client can rely on in an answer: status, headers but the per-request ones, and each error's code and place. */
function answer(sent: Sent) {
  const { 'x-request-id': _id, date: _date, ...headers } = sent.headers;
  const errors = (sent.body?.errors ?? []) as { code: string; source?: Record<string, string> }[];
  return {
    status: sent.status,
    headers,
    errors: errors.map((e) => `${e.code} ${JSON.stringify(e.source)}`).sort(),
    data: sent.body?.data,
    meta: sent.body?.meta,
  };
}

async function answers(method: string, url: string, init: Parameters<typeof send>[3] = {}) {
  return Promise.all(
    apps.map(async ([library, app]) => [library, answer(await send(app, method, url, init))] as const),
  );
}

function expectSame(all: readonly (readonly [string, ReturnType<typeof answer>])[]) {
  const [, first] = all[0]!;
  for (const [library, each] of all) expect({ library, ...each }).toEqual({ library, ...first });
  return first;
}

describe('one API declared with io-ts, zod, valibot and arktype', () => {
  it.each([
    ['a valid body', '{"title":"Dune","quantity":2}', BARE, 201],
    ['a valid body with a note', '{"title":"Dune","quantity":2,"note":"gift"}', BARE, 201],
    [
      'a valid JSON:API document',
      '{"data":{"type":"notes","attributes":{"title":"Dune","quantity":2}}}',
      DOCUMENT,
      201,
    ],
    ['a wrong type, a missing and an unknown field', '{"title":5,"extra":1}', BARE, 400],
    ['blank text, a fraction and an empty note', '{"title":" ","quantity":1.5,"note":""}', BARE, 400],
    [
      'bad attributes in a JSON:API document',
      '{"data":{"type":"notes","attributes":{"quantity":0}}}',
      DOCUMENT,
      400,
    ],
    ['a body that is not an object', '[1,2]', BARE, 400],
    ['a number past the bound', '{"title":"Dune","quantity":101}', BARE, 400],
    ['malformed JSON', '{"title":', BARE, 400],
    ['a JSON:API document sent as JSON', '{"data":{"type":"notes","attributes":{"title":1}}}', BARE, 415],
    ['another media type', 'title=Dune', { 'content-type': 'text/plain' }, 415],
  ])('answers %s alike (%s)', async (_what, body, headers, status) => {
    const first = expectSame(await answers('POST', '/notes', { headers, body }));
    expect(first.status).toBe(status);
  });

  it('points at each bad field the same way, bare or in a document', async () => {
    const bare = expectSame(
      await answers('POST', '/notes', { headers: BARE, body: '{"title":5,"extra":1}' }),
    );
    expect(bare.errors).toEqual([
      'invalid-field {"pointer":"/title"}',
      'missing-field {"pointer":"/quantity"}',
      'unknown-field {"pointer":"/extra"}',
    ]);
    const inDocument = expectSame(
      await answers('POST', '/notes', {
        headers: DOCUMENT,
        body: '{"data":{"type":"notes","attributes":{"title":5,"extra":1}}}',
      }),
    );
    expect(inDocument.errors).toEqual([
      'invalid-field {"pointer":"/data/attributes/title"}',
      'missing-field {"pointer":"/data/attributes/quantity"}',
      'unknown-field {"pointer":"/data/attributes/extra"}',
    ]);
  });

  it('answers 413 past the body limit alike', async () => {
    const body = JSON.stringify({ title: 'x'.repeat(200 * 1024), quantity: 1 });
    expect(expectSame(await answers('POST', '/notes', { headers: BARE, body })).status).toBe(413);
  });

  it.each([
    ['/notes/12', 200],
    ['/notes/012', 404],
    ['/notes/x', 404],
    ['/notes?limit=5', 200],
    ['/notes', 200],
    ['/notes?limit=51', 400],
    ['/notes?limit=1.5', 400],
    ['/notes?limit=5&limit=6', 400],
    ['/notes?other=1', 400],
  ])('answers GET %s alike', async (url, status) => {
    expect(expectSame(await answers('GET', url)).status).toBe(status);
  });

  it('never sends a validator message', async () => {
    for (const [, app] of apps) {
      const sent = await send(app, 'POST', '/notes', {
        headers: BARE,
        body: '{"title":5,"quantity":"x","b":1}',
      });
      expect(sent.text).not.toMatch(
        /Invalid input|Invalid type|Expected|received|must be removed|Unrecognized/,
      );
    }
  });

  it('caps the listed problems at 20 and counts the rest', async () => {
    const body = JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i])));
    for (const [library, app] of apps) {
      const sent = await send(app, 'POST', '/notes', { headers: BARE, body });
      expect(sent.status, library).toBe(400);
      expect(sent.body.errors.length, library).toBeLessThanOrEqual(20);
    }
  });

  // Titles from a small alphabet (ASCII, so every library counts their length alike), around the bounds.
  const text = (max: number) =>
    fc.oneof(
      fc.string({ unit: fc.constantFrom('a', ' ', 'Z', '\t'), maxLength: 4 }),
      fc.string({ unit: fc.constantFrom('a', ' '), minLength: max - 1, maxLength: max + 1 }),
    );
  const value = fc.oneof(
    text(200),
    fc.integer({ min: -2, max: 102 }),
    fc.double({ min: 0, max: 101, noNaN: true }),
    fc.constantFrom(null, true, [], {}),
  );
  const body = fc.oneof(
    fc.record(
      { title: fc.oneof(text(200), value), quantity: value, note: fc.oneof(text(500), value), extra: value },
      { requiredKeys: [] },
    ),
    value,
  );

  test.prop([body, fc.boolean()], { numRuns: 150 })(
    'every random body is accepted by all four or refused by all four, with the same status',
    async (attributes, asDocument) => {
      const sent = asDocument
        ? { headers: DOCUMENT, body: JSON.stringify({ data: { type: 'notes', attributes } }) }
        : { headers: BARE, body: JSON.stringify(attributes) };
      const all = await answers('POST', '/notes', sent);
      const statuses = new Set(all.map(([, each]) => each.status));
      expect(statuses.size, JSON.stringify(all.map(([l, each]) => [l, each.status, each.errors]))).toBe(1);
      if (all[0]![1].status === 201) for (const [, each] of all) expect(each.data).toEqual(all[0]![1].data);
    },
  );
});

describe('the four blocks of docs/validation.md', () => {
  it('compile under tsc --strict, each handler typed from its own schemas', async () => {
    expect([...BLOCKS.keys()]).toEqual(LIBRARIES.map((library) => `${library}.ts`));
    const dir = writeBlocks(import.meta.dirname, '.validation-tsc-', BLOCKS);
    try {
      expect(compileBlocks(dir)).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe('a Standard Schema validator in a route', () => {
  it('is refused at registration, naming the route, when it can give no JSON Schema', () => {
    const app = createApp({ logger: recordingLogger() });
    expect(() =>
      app.route({
        method: 'POST',
        path: '/notes',
        body: { codec: v.strictObject({ title: v.string() }), type: 'notes' },
        handler: () => json(204, undefined),
      }),
    ).toThrow(
      new TypeError(
        'Route POST /notes: body.codec: the valibot schema gives no JSON Schema (Standard JSON Schema); pass a converter as the jsonSchema option',
      ),
    );
  });

  it('is refused in a typed resource of a response, naming where', () => {
    const app = createApp({ logger: recordingLogger() });
    const notes = { type: 'notes', id: z.string(), attributes: v.strictObject({ title: v.string() }) };
    expect(() =>
      app.route({
        method: 'GET',
        path: '/notes',
        responses: { 200: { description: 'Notes', body: { collection: notes } } },
        handler: () => json(200, { data: [] }),
      }),
    ).toThrow(
      /^Route GET \/notes: responses\[200\]\.body\.collection\.attributes: the valibot schema gives no JSON Schema/,
    );
  });

  it('is refused when its JSON Schema is not 2020-12', () => {
    const app = createApp({
      logger: recordingLogger(),
      jsonSchema: (schema) => ({
        ...valibotConverter(schema, { target: 'draft-2020-12', io: 'input' }),
        $schema: 'http://json-schema.org/draft-07/schema#',
      }),
    });
    expect(() =>
      app.route({ method: 'GET', path: '/n', query: { q: v.string() }, handler: () => json(204, undefined) }),
    ).toThrow(/Route GET \/n: query.q: the JSON Schema is http:\/\/json-schema.org\/draft-07\/schema#/);
  });

  it('awaits a validator that answers asynchronously, in the body, the path and the query', async () => {
    const taken = new Set(['taken']);
    const free = z.string().refine(async (name) => !taken.has(name));
    const app = createApp({ logger: recordingLogger() }).route({
      method: 'POST',
      path: '/names/{name}',
      params: { name: z.string().refine(async (name) => name !== 'gone') },
      query: { as: free.optional() },
      body: { codec: z.strictObject({ name: free }), type: 'names' },
      handler: (ctx) =>
        json(201, {
          data: { type: 'names', id: ctx.params.name, attributes: { ...ctx.body, as: ctx.query.as ?? null } },
        }),
    });
    const post = (url: string, name: string) =>
      send(app, 'POST', url, { headers: BARE, body: JSON.stringify({ name }) });
    expect((await post('/names/a?as=b', 'c')).body.data.attributes).toEqual({ name: 'c', as: 'b' });
    const refused = await post('/names/a', 'taken');
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].source).toEqual({ pointer: '/name' });
    expect((await post('/names/gone', 'c')).status).toBe(404);
    const query = await post('/names/a?as=taken', 'c');
    expect(query.status).toBe(400);
    expect(query.body.errors[0].source).toEqual({ parameter: 'as' });
  });

  it('is described in the document by its own JSON Schema', () => {
    const document = openApiDocument(notesApp('zod').routes(), { title: 'Notes', version: '1' });
    const text = JSON.stringify(document);
    expect(text).toContain('"maxLength":200');
    expect(text).toContain('"additionalProperties":false');
  });
});

describe('the decoders given a validator directly', () => {
  const Order = z.strictObject({ quantity: z.int().min(1) });

  it('decodeJsonBytes decodes with it, and refuses one that answers asynchronously', () => {
    const bytes = new TextEncoder().encode('{"quantity":2}');
    expect(decodeJsonBytes('application/json', bytes, { codec: Order, type: 'orders' })).toEqual({
      quantity: 2,
    });
    const slow = z.strictObject({ quantity: z.int().refine(async () => true) });
    expect(() => decodeJsonBytes('application/json', bytes, { codec: slow, type: 'orders' })).toThrow(
      /answers asynchronously; use decodeJsonBody/,
    );
  });

  test.prop([fc.oneof(fc.anything(), fc.record({ quantity: fc.anything() }))], { seed: 41, numRuns: 200 })(
    "a codec's own decode and validateSchema read the validator's answer alike",
    (value) => {
      const codec = schemaCodec(Order, 'input', 'test');
      expect(validateSchema(codec.asCodec(), value)).toEqual(codec.decode(value));
    },
  );

  it('a bare decode refuses a validator that answers asynchronously, which validateSchema awaits', async () => {
    const slow = schemaCodec(z.strictObject({ quantity: z.int().refine(async () => true) }), 'input', 'test');
    expect(() => slow.decode({ quantity: 1 })).toThrow(/^The zod schema validates asynchronously/);
    expect(await validateSchema(slow.asCodec(), { quantity: 1 })).toEqual({
      _tag: 'Right',
      right: { quantity: 1 },
    });
    const refused = await validateSchema(slow.asCodec(), { quantity: 0.5 });
    expect(refused).toMatchObject({ _tag: 'Left' });
  });

  it('decodeJsonBody and decodeQuery answer with the same errors as for a codec', async () => {
    const app = createApp({ logger: recordingLogger() }).route({
      method: 'POST',
      path: '/orders',
      handler: async (ctx) => {
        const { size } = decodeQuery(ctx, { size: z.string().regex(/^\d+$/).optional() });
        const input = await decodeJsonBody(ctx, { codec: Order, type: 'orders' });
        return json(201, { data: { type: 'orders', id: '1', attributes: { ...input, size: size ?? null } } });
      },
    });
    const sent = await send(app, 'POST', '/orders?size=x', { headers: BARE, body: '{"quantity":0,"x":1}' });
    expect(sent.body.errors[0].source).toEqual({ parameter: 'size' });
    const body = await send(app, 'POST', '/orders', { headers: BARE, body: '{"quantity":0,"x":1}' });
    expect(body.body.errors.map((e: { code: string }) => e.code).sort()).toEqual([
      'invalid-field',
      'unknown-field',
    ]);
    expect(body.body.errors.find((e: { code: string }) => e.code === 'invalid-field').detail).toBe(
      '"quantity" must be an integer of at least 1, got the number 0.',
    );
  });
});
