import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { oneOf, text } from '../../src/validation/codecs.js';
import { decodeQuery } from '../../src/validation/decode-query.js';
import { refine } from '../../src/validation/describe.js';
import { toJsonSchema } from '../../src/validation/json-schema.js';
import { queryList, querySort } from '../../src/validation/query-codecs.js';
import { recordingLogger, send } from '../core/send.js';

const app = createApp({ logger: recordingLogger() }).route({
  method: 'GET',
  path: '/books',
  handler: (ctx) =>
    json(200, {
      data: [],
      meta: {
        query: decodeQuery(ctx, { author: text({ maxLength: 20 }), sort: oneOf(['title', '-title']) }),
      },
    }),
});

const problems = (body: { errors: { code: string; source: { parameter: string } }[] }) =>
  body.errors.map((e) => [e.code, e.source.parameter] as const);

describe('decodeQuery', () => {
  it('decodes the listed parameters, leaving absent ones out', async () => {
    const res = await send(app, 'GET', '/books?author=Frank%20Herbert');
    expect(res.body.meta.query).toEqual({ author: 'Frank Herbert' });
    expect((await send(app, 'GET', '/books')).body.meta.query).toEqual({});
  });

  it('answers 400 naming an unknown parameter', async () => {
    const res = await send(app, 'GET', '/books?auther=x');
    expect(res.status).toBe(400);
    expect(problems(res.body)).toEqual([['unknown-parameter', 'auther']]);
    expect(res.body.errors[0].detail).toMatch(/allowed: author, sort/);
  });

  it('answers 400 naming a repeated parameter', async () => {
    const res = await send(app, 'GET', '/books?author=a&author=b');
    expect(problems(res.body)).toEqual([['repeated-parameter', 'author']]);
  });

  it('answers 400 naming an invalid parameter', async () => {
    const res = await send(app, 'GET', '/books?sort=price&author=');
    expect(res.status).toBe(400);
    expect(problems(res.body)).toEqual([
      ['invalid-parameter', 'sort'],
      ['invalid-parameter', 'author'],
    ]);
    expect(res.body.errors[0].detail).toBe('"sort" must be one of "title", "-title".');
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    'treats %s as an unknown parameter, not an inherited property',
    async (name) => {
      const res = await send(app, 'GET', `/books?${name}=1`);
      expect(res.status).toBe(400);
      expect(problems(res.body)).toEqual([['unknown-parameter', name]]);
    },
  );

  it('answers any query string with 200 or a 400 naming the parameters at fault (property)', async () => {
    const name = fc.oneof(
      fc.constantFrom('author', 'sort', 'page[size]', 'filter[x]'),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(fc.constantFrom('title', '-title', 'x'), fc.string({ maxLength: 25 }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 5 }), async (pairs) => {
        const search = new URLSearchParams(pairs).toString();
        const res = await send(app, 'GET', `/books?${search}`);
        const sent = new URLSearchParams(search);
        const names = new Set(sent.keys());
        if (res.status === 200) {
          for (const n of names) expect(['author', 'sort']).toContain(n);
        } else {
          expect(res.status).toBe(400);
          for (const [, parameter] of problems(res.body)) expect(names.has(parameter)).toBe(true);
          for (const n of names) {
            if (n !== 'author' && n !== 'sort')
              expect(problems(res.body)).toContainEqual(['unknown-parameter', n]);
          }
        }
      }),
    );
  });
});

const listApp = createApp({ logger: recordingLogger() }).route({
  method: 'GET',
  path: '/standards',
  handler: (ctx) =>
    json(200, {
      data: [],
      meta: {
        query: decodeQuery(ctx, {
          'filter[status]': queryList(['draft', 'published', 'withdrawn']),
          sort: querySort(['code', 'name']),
          q: text({ maxLength: 20 }),
        }),
      },
    }),
});

describe('decodeQuery: list-valued parameters in each form a client sends them', () => {
  const statuses = ['draft', 'published'];

  it.each([
    ['repeated (OpenAPI form, explode: true)', 'filter[status]=draft&filter[status]=published'],
    ['comma-joined (form, explode: false)', 'filter[status]=draft,published'],
    ['with empty brackets (axios, qs, PHP)', 'filter[status][]=draft&filter[status][]=published'],
    ['mixed', 'filter[status]=draft&filter[status][]=published'],
  ])('reads the %s form', async (_form, search) => {
    const res = await send(
      listApp,
      'GET',
      `/standards?${search.replaceAll('[', '%5B').replaceAll(']', '%5D')}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.query).toEqual({ 'filter[status]': statuses });
  });

  it('keeps the order of a repeated sort', async () => {
    const res = await send(listApp, 'GET', '/standards?sort=-code&sort=name');
    expect(res.body.meta.query.sort).toEqual([
      { field: 'code', descending: true },
      { field: 'name', descending: false },
    ]);
  });

  it('still answers 400 to a repeated scalar parameter, and to brackets on one', async () => {
    const repeated = await send(listApp, 'GET', '/standards?q=a&q=b');
    expect(problems(repeated.body)).toEqual([['repeated-parameter', 'q']]);
    const bracketed = await send(listApp, 'GET', '/standards?q[]=a');
    expect(problems(bracketed.body)).toEqual([['unknown-parameter', 'q[]']]);
  });

  it('names the parameter when a member of any form is refused', async () => {
    const res = await send(listApp, 'GET', '/standards?filter[status]=draft&filter[status]=gone');
    expect(problems(res.body)).toEqual([['invalid-parameter', 'filter[status]']]);
    const sorted = await send(listApp, 'GET', '/standards?sort=code&sort=-code');
    expect(problems(sorted.body)).toEqual([['invalid-parameter', 'sort']]);
  });

  it('reads a refined list codec as a list too, as the document describes it', async () => {
    const atMostTwo = refine(queryList(['a', 'b', 'c']), (list) => list.length <= 2, {
      name: 'at most two of a, b, c',
      schema: { maxItems: 2 },
    });
    const refinedApp = createApp({ logger: recordingLogger() }).route({
      method: 'GET',
      path: '/x',
      handler: (ctx) => json(200, { data: [], meta: { query: decodeQuery(ctx, { tags: atMostTwo }) } }),
    });
    expect(toJsonSchema(atMostTwo).type).toBe('array');
    expect((await send(refinedApp, 'GET', '/x?tags=a&tags=b')).body.meta.query).toEqual({ tags: ['a', 'b'] });
    expect(problems((await send(refinedApp, 'GET', '/x?tags=a&tags=b&tags=c')).body)).toEqual([
      ['invalid-parameter', 'tags'],
    ]);
  });

  it('reads any split of a list into repeated, comma-joined and bracketed parts as the whole list (property)', async () => {
    const token = fc.constantFrom('draft', 'published', 'withdrawn', 'x', '');
    const part = fc.record({
      tokens: fc.array(token, { minLength: 1, maxLength: 3 }),
      bracketed: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), async (parts) => {
        const search = new URLSearchParams(
          parts.map((p): [string, string] => [
            p.bracketed ? 'filter[status][]' : 'filter[status]',
            p.tokens.join(','),
          ]),
        ).toString();
        const res = await send(listApp, 'GET', `/standards?${search}`);
        // The model: the list is the concatenation of every part's members, in order, of at most as
        // many members as there are tokens (its maxItems).
        const whole = parts.flatMap((p) => p.tokens);
        if (
          whole.length <= 3 &&
          whole.every((t) => t === 'draft' || t === 'published' || t === 'withdrawn')
        ) {
          expect(res.status).toBe(200);
          expect(res.body.meta.query['filter[status]']).toEqual([...new Set(whole)]);
        } else {
          expect(res.status).toBe(400);
          expect(problems(res.body)).toEqual([['invalid-parameter', 'filter[status]']]);
        }
      }),
    );
  });
});
