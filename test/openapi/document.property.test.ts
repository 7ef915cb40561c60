import { fc, test } from '@fast-check/vitest';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { type DescribedRoute, openApiDocument } from '../../src/openapi/index.js';
import { integer, oneOf, strictObject, text } from '../../src/validation/index.js';

const NAMES = ['books', 'orders', 'users', 'account-types', 'standards'] as const;
const CODECS = [text({ maxLength: 20 }), integer({ min: 1, max: 9 }), oneOf(['a', 'b'])] as const;

/** A random route table: unique method + path pairs, params with or without codecs, a query, a body. */
const routeTable = fc
  .uniqueArray(
    fc.record({
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
      segments: fc.array(fc.record({ name: fc.constantFrom(...NAMES), param: fc.boolean() }), {
        minLength: 1,
        maxLength: 3,
      }),
      paramCodec: fc.option(fc.constantFrom(...CODECS), { nil: undefined }),
      query: fc.option(
        fc.dictionary(fc.constantFrom('author', 'filter', 'page[size]'), fc.constantFrom(...CODECS), {
          maxKeys: 2,
        }),
        { nil: undefined },
      ),
      body: fc.boolean(),
      auth: fc.constantFrom<DescribedRoute['auth']>('none', 'principal', { scopes: ['books:write'] }),
      deprecated: fc.boolean(),
    }),
    {
      selector: (r) =>
        `${r.method} ${r.segments.map((s, i) => (s.param ? `${s.name}/{p${i}}` : s.name)).join('/')}`,
      maxLength: 8,
    },
  )
  .map((rows) =>
    rows.map((row): DescribedRoute & { paramNames: string[] } => {
      const paramNames: string[] = [];
      const pattern = `/${row.segments
        .map((s, i) => {
          if (!s.param) return s.name;
          paramNames.push(`p${i}`);
          return `${s.name}/{p${i}}`;
        })
        .join('/')}`;
      return {
        method: row.method,
        pattern,
        paramNames,
        params: row.paramCodec && paramNames.length > 0 ? { [paramNames[0]!]: row.paramCodec } : {},
        query: row.query,
        body: row.body
          ? { codec: strictObject({ title: text({ maxLength: 10 }) }), type: 'books' }
          : undefined,
        auth: row.auth,
        deprecated: row.deprecated
          ? { since: '2025-01-01', sunset: new Date(Date.UTC(2030, 0, 1)) }
          : undefined,
      };
    }),
  );

describe('openApiDocument', () => {
  test.prop([routeTable], { numRuns: 60 })(
    'every route appears with its parameters, body and security',
    (routes) => {
      const document = openApiDocument(routes, { title: 'T', version: '1' });
      for (const route of routes) {
        const operation = document.paths?.[route.pattern]?.[route.method.toLowerCase() as 'get'];
        expect(operation, `${route.method} ${route.pattern}`).toBeDefined();
        const names = (operation!.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(names).toEqual(route.paramNames);
        const queries = (operation!.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort();
        expect(queries).toEqual(Object.keys(route.query ?? {}).sort());
        expect(operation!.requestBody !== undefined).toBe(route.body !== undefined);
        expect(operation!.deprecated === true).toBe(route.deprecated !== undefined);
        const statuses = Object.keys(operation!.responses);
        expect(statuses.includes('401')).toBe(route.auth !== 'none');
        expect(statuses.includes('403')).toBe(typeof route.auth === 'object');
        expect(operation!.security?.length ?? 0).toBe(route.auth === 'none' ? 0 : 1);
      }
      const operations = Object.values(document.paths ?? {}).flatMap((item) => Object.keys(item));
      expect(operations).toHaveLength(routes.length);
    },
  );

  test.prop([routeTable], { numRuns: 8 })(
    'an independent validator accepts every document',
    async (routes) => {
      const document = openApiDocument(routes, { title: 'T', version: '1' });
      const result = await validate(structuredClone(document) as never);
      expect(result.valid, JSON.stringify(result)).toBe(true);
    },
  );

  it('refuses options without a title and version', () => {
    expect(() => openApiDocument([], {} as never)).toThrow(TypeError);
  });
});
