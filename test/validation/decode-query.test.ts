import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { oneOf, text } from '../../src/validation/codecs.js';
import { decodeQuery } from '../../src/validation/decode-query.js';
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
