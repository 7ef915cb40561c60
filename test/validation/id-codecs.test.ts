import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { isRight } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/core/route.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { integer, strictObject, text } from '../../src/validation/codecs.js';
import { numericId, stringId } from '../../src/validation/id-codecs.js';
import { toJsonSchema } from '../../src/validation/json-schema.js';

const ajv = new Ajv2020({ strict: true });
// OpenAPI's integer formats (OpenAPI 3.1 section 4.2): annotations here, the range says the rest.
ajv.addFormat('int32', true);
ajv.addFormat('int64', true);
const schemaAccepts = (codec: Parameters<typeof toJsonSchema>[0]) => ajv.compile(toJsonSchema(codec));

/** Text a client might put in a path segment: digits, letters, signs, spaces, astral characters. */
const segment = fc.oneof(
  fc.nat().map(String),
  fc.stringMatching(/^0?[0-9]{1,17}$/),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('', '-1', '+1', '1.0', '1e3', ' 1', '012', '999999999999999', '1000000000000000'),
);

describe('numericId(): a numeric id as JSON:API writes it, a string of digits', () => {
  const codec = numericId();
  const validate = schemaAccepts(codec);

  it('accepts exactly 1 and up in decimal, without a leading zero, at most 15 digits (model)', () => {
    fc.assert(
      fc.property(segment, (s) => {
        const model = /^[1-9][0-9]{0,14}$/.test(s);
        const decoded = codec.decode(s);
        expect(isRight(decoded)).toBe(model);
        if (isRight(decoded)) {
          expect(decoded.right).toBe(Number(s));
          expect(Number.isSafeInteger(decoded.right)).toBe(true);
          expect(codec.encode(decoded.right)).toBe(s);
        }
        // The document's schema accepts the same texts the codec does.
        expect(validate(s)).toBe(model);
      }),
    );
  });

  it('refuses what is not text: a number is the decoded value, not the id', () => {
    expect(isRight(codec.decode(12))).toBe(false);
    expect(toJsonSchema(codec)).toMatchObject({
      type: 'string',
      pattern: '^[1-9][0-9]{0,14}$',
      maxLength: 15,
    });
  });
});

describe('stringId({ pattern, maxLength })', () => {
  it('accepts text matching the pattern of 1 to maxLength code points, as its schema does', () => {
    const codec = stringId({ pattern: /^[A-Za-z0-9._~\u{1F600}-]+$/u, maxLength: 5 });
    const validate = schemaAccepts(codec);
    fc.assert(
      fc.property(fc.oneof(segment, fc.constantFrom('😀😀😀😀😀', '😀😀😀😀😀😀', 'a.b~c')), (s) => {
        const model = /^[A-Za-z0-9._~\u{1F600}-]+$/u.test(s) && [...s].length >= 1 && [...s].length <= 5;
        expect(isRight(codec.decode(s))).toBe(model);
        expect(validate(s)).toBe(model);
      }),
    );
  });

  it.each([
    [{ pattern: /[a-z]+/, maxLength: 5 }, /anchored/],
    [{ pattern: /^[a-z]+$/i, maxLength: 5 }, /flags/],
    [{ pattern: /^[a-z]+$/g, maxLength: 5 }, /flags/],
    [{ pattern: /^[a-z]+$/, maxLength: 0 }, /maxLength/],
    [{ pattern: /^[a-z]+$/, maxLength: 1.5 }, /maxLength/],
    [{ pattern: '^[a-z]+$' as unknown as RegExp, maxLength: 5 }, /RegExp/],
  ])('throws a TypeError at once for %o', (options, message) => {
    expect(() => stringId(options)).toThrow(TypeError);
    expect(() => stringId(options)).toThrow(message);
  });
});

describe('a path id and the resource it names, described alike', () => {
  const bookId = numericId();
  const books = { type: 'books', id: bookId, attributes: strictObject({ title: text({ maxLength: 200 }) }) };
  const route = (resource: typeof books | { type: string; id: unknown; attributes: unknown }, params = {}) =>
    ({
      method: 'GET',
      pattern: '/books/{id}',
      params,
      responses: { 200: { description: 'One book', body: { resource } } },
    }) as unknown as RouteInfo;

  it('gives the path parameter and data.id the same string schema, and the linter finds nothing', () => {
    const document = openApiDocument([route(books, { id: bookId })], { title: 'Books', version: '1' });
    const parameter = document.paths!['/books/{id}']!.get!.parameters!.find((p) => p.in === 'path')!;
    const resource = document.components!.schemas!.BooksResource as { properties: { id: unknown } };
    expect(parameter.schema).toEqual(resource.properties.id);
    expect(parameter.schema).toMatchObject({ type: 'string', pattern: '^[1-9][0-9]{0,14}$' });
    expect(lintOpenApi(document).filter((f) => f.rule === 'path-id-type')).toEqual([]);
  });

  it('is a lint finding when the path takes an integer and the resource a string id', () => {
    const document = openApiDocument([route(books, { id: integer({ min: 1 }) })], {
      title: 'Books',
      version: '1',
    });
    expect(lintOpenApi(document).map((f) => [f.rule, f.message])).toContainEqual([
      'path-id-type',
      "Path parameter {id} names the resource's id: it is an integer (format int64), the id a string matching ^[1-9][0-9]{0,14}$.",
    ]);
  });

  it('refuses a resource whose id codec describes no string, naming it', () => {
    const numbered = { ...books, id: integer({ min: 1 }) };
    expect(() => openApiDocument([route(numbered)], { title: 'Books', version: '1' })).toThrow(
      /the id codec of books must describe a string/,
    );
  });
});
