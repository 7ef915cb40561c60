import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { isRight } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import {
  annotate,
  date,
  integer,
  list,
  nullable,
  oneOf,
  positiveInteger,
  queryInteger,
  queryList,
  querySort,
  refine,
  strictObject,
  text,
  toJsonSchema,
  withSchema,
} from '../../src/validation/index.js';

// Strict mode: unknown keywords, missing types and ignored keywords are compile errors. `format` is
// an annotation in JSON Schema 2020-12 (section 7.2), so the formats the library names are declared.
const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addFormat('date', true);
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
const compile = (codec: t.Mixed) => ajv.compile(toJsonSchema(codec));

/** Random JSON values (what a body can hold), with strings and numbers near the codecs' edges. */
const edgy = fc.oneof(
  fc.integer({ min: -3, max: 120 }),
  fc.constantFrom(0.5, -0, 2 ** 53, -(2 ** 53), 9007199254740991, 1e308),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    'ABC-1.2',
    'abc',
    'draft',
    'published',
    'a',
    'b',
    '\u{1F600}\u{1F600}',
    '\uD800x',
  ),
  fc.constantFrom(
    '2024-02-29',
    '2023-02-29',
    '1900-02-29',
    '2000-02-29',
    '2024-04-31',
    '2024-13-01',
    '0000-01-01',
  ),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.oneof(
  { weight: 3, arbitrary: edgy },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(edgy, { maxLength: 4 }) },
);
const objectOf = (keys: readonly string[]) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 3 })), json, { maxKeys: 5 });

function agrees(codec: t.Mixed, values: fc.Arbitrary<unknown>) {
  const validate = compile(codec);
  fc.assert(
    fc.property(values, (value) => {
      const decoded = isRight(codec.decode(value));
      expect({ value, schema: validate(value) }).toEqual({ value, schema: decoded });
      expect(codec.is(value)).toBe(decoded);
    }),
    { numRuns: 400 },
  );
}

describe('toJsonSchema: codec and derived schema accept the same JSON values (ajv 2020-12, strict)', () => {
  it.each([
    ['integer()', integer()],
    ['integer({ min: 1, max: 100 })', integer({ min: 1, max: 100 })],
    ['integer({ max: 5 })', integer({ max: 5 })],
    ['positiveInteger', positiveInteger],
  ])('%s', (_, codec) => agrees(codec, json));

  it.each([
    ['text()', text()],
    ['text({ minLength: 0, maxLength: 3 })', text({ minLength: 0, maxLength: 3 })],
    ['text({ minLength: 2, maxLength: 4 })', text({ minLength: 2, maxLength: 4 })],
    ['text({ pattern })', text({ maxLength: 32, pattern: /^[A-Z0-9][A-Z0-9.-]*$/ })],
  ])('%s', (_, codec) => agrees(codec, json));

  it('oneOf', () => agrees(oneOf(['draft', 'published', 'a']), json));
  it('date', () =>
    agrees(
      date(),
      fc.oneof(
        json,
        fc
          .tuple(
            fc.integer({ min: 0, max: 9999 }),
            fc.integer({ min: 0, max: 13 }),
            fc.integer({ min: 0, max: 32 }),
          )
          .map(
            ([y, m, d]) =>
              `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
          ),
      ),
    ));
  it('date: 29 February only in leap years as RFC 3339 appendix C counts them, year 0000 included', () => {
    const validate = compile(date());
    const leap = {
      '0000': true,
      '0100': false,
      '0400': true,
      '1900': false,
      '2000': true,
      '2023': false,
      '2024': true,
    };
    for (const [year, isLeap] of Object.entries(leap)) {
      const value = `${year}-02-29`;
      expect({ value, codec: isRight(date().decode(value)), schema: validate(value) }).toEqual({
        value,
        codec: isLeap,
        schema: isLeap,
      });
    }
  });
  it('nullable', () => agrees(nullable(text({ maxLength: 5 })), json));
  it('list', () => agrees(list(oneOf(['a', 'b']), { minItems: 1, maxItems: 3 }), json));
  it('refine', () =>
    agrees(
      refine(t.number, (n) => n >= 0 && n < 10, {
        name: 'a digit',
        schema: { minimum: 0, exclusiveMaximum: 10 },
      }),
      json,
    ));

  it('strictObject, nested, with optional fields', () => {
    const codec = strictObject(
      { a: positiveInteger, inner: strictObject({ b: oneOf(['a', 'b']) }) },
      { c: nullable(text({ maxLength: 3 })) },
    );
    agrees(
      codec,
      fc.oneof(
        json,
        fc.record({ a: json, inner: fc.oneof(objectOf(['b']), json), c: json }, { requiredKeys: [] }),
        objectOf(['a', 'c', 'inner']),
      ),
    );
  });

  it('plain io-ts combinators', () => {
    const codec = t.readonly(
      t.exact(
        t.intersection([
          t.type({ s: t.string, n: t.number, kind: t.union([t.literal('x'), t.literal(1)]) }),
          t.partial({ b: t.boolean, z: t.null, k: t.keyof({ a: null, b: null }), l: t.array(t.Int) }),
        ]),
      ),
    );
    agrees(
      codec,
      fc.oneof(
        json,
        fc.record(
          {
            s: json,
            n: json,
            kind: fc.oneof(fc.constantFrom('x', 1), json),
            b: json,
            z: json,
            k: json,
            l: fc.array(json, { maxLength: 3 }),
            extra: json,
          },
          { requiredKeys: [] },
        ),
      ),
    );
  });
});

describe('toJsonSchema: query codecs describe the parameter value (OpenAPI form style, not exploded)', () => {
  it('queryInteger', () => {
    const codec = queryInteger({ min: 1, max: 100 });
    const validate = compile(codec);
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -5, max: 110 }), fc.double()), (n) => {
        expect(isRight(codec.decode(String(n)))).toBe(validate(n));
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), (query) => {
        const decoded = codec.decode(query);
        if (isRight(decoded)) expect(validate(decoded.right)).toBe(true);
      }),
    );
  });
  it('queryList', () => {
    const codec = queryList(['a', 'b', 'cd']);
    const validate = compile(codec);
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'cd', '', 'x', ' a'), { maxLength: 4 }), (items) => {
        expect(isRight(codec.decode(items.join(',')))).toBe(validate(items) && items.join(',') !== '');
      }),
    );
  });
  it('querySort', () => {
    const codec = querySort(['name', 'code']);
    const validate = compile(codec);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('name', '-name', 'code', '-code', '', 'x', '--name'), { maxLength: 4 }),
        (items) => {
          expect(isRight(codec.decode(items.join(',')))).toBe(validate(items) && items.join(',') !== '');
        },
      ),
    );
  });
});

describe('toJsonSchema: what it says and when it cannot', () => {
  it('describes a strict object with bounds, required fields and annotations', () => {
    const codec = strictObject(
      { bookId: annotate(positiveInteger, { description: 'The book' }) },
      { note: text({ maxLength: 200 }) },
    );
    expect(toJsonSchema(codec)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        bookId: {
          type: 'integer',
          format: 'int64',
          minimum: 1,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'The book',
        },
        note: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          not: { pattern: '[\\u0000\\uD800-\\uDFFF]' },
          pattern: '\\S',
        },
      },
      required: ['bookId'],
      additionalProperties: false,
    });
  });

  it('names where and the position of a codec it cannot describe', () => {
    const opaque = new t.Type<string>('Opaque', t.string.is, t.string.validate, t.identity);
    expect(() => toJsonSchema(strictObject({ x: opaque }), { where: 'route POST /orders: body' })).toThrow(
      new TypeError(
        'route POST /orders: body: codec "Opaque" at /x cannot be described as JSON Schema: io-ts cannot look inside it; build it from io-ts combinators or give it a schema with withSchema().',
      ),
    );
    expect(() => toJsonSchema(t.refinement(t.number, (n) => n > 0, 'Positive'))).toThrow(
      /^toJsonSchema: codec "Positive" cannot be described as JSON Schema: a refinement must state its constraint/,
    );
    expect(() => toJsonSchema(t.undefined)).toThrow(TypeError);
    const caseless = text({ pattern: /^[a-z]+$/i });
    expect(caseless.is('ABC')).toBe(true);
    expect(() => toJsonSchema(caseless)).toThrow(/flags other than "u" cannot be stated/);
  });

  it('uses the schema given to an opaque codec', () => {
    const opaque = withSchema(new t.Type<string>('Opaque', t.string.is, t.string.validate, t.identity), {
      type: 'string',
    });
    expect(toJsonSchema(t.array(opaque))).toMatchObject({ type: 'array', items: { type: 'string' } });
  });
});
