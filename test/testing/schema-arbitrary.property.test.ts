import { fc, test } from '@fast-check/vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect } from 'vitest';
import { invalidValue, validValue } from '../../src/testing/schema-arbitrary.js';
import {
  date,
  integer,
  nullable,
  oneOf,
  strictObject,
  text,
  toJsonSchema,
} from '../../src/validation/index.js';

const ajv = new Ajv2020({ strict: false });
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);

/** Schemas the library derives from its own codecs: what the generator meets in practice. */
const SCHEMAS = [
  toJsonSchema(text({ maxLength: 20 })),
  toJsonSchema(text({ minLength: 2, maxLength: 8, pattern: /^[A-Z0-9.-]+$/ })),
  toJsonSchema(integer({ min: 1, max: 100 })),
  toJsonSchema(oneOf(['draft', 'active', 'retired'])),
  toJsonSchema(nullable(text({ maxLength: 5 }))),
  toJsonSchema(date()),
  toJsonSchema(strictObject({ bookId: integer({ min: 1 }), quantity: integer({ min: 1, max: 100 }) })),
  toJsonSchema(
    strictObject(
      { code: text({ minLength: 1, maxLength: 10, pattern: /^[A-Z0-9]+$/ }) },
      { note: text({ maxLength: 10 }) },
    ),
  ),
];

describe('values drawn from a JSON Schema', () => {
  test.prop([
    fc.constantFrom(...SCHEMAS.keys()).chain((i) => fc.tuple(fc.constant(i), validValue(SCHEMAS[i]!))),
  ])('a valid value is one an independent validator accepts', ([i, value]) => {
    expect(ajv.validate(SCHEMAS[i]!, value), `${JSON.stringify(SCHEMAS[i])} ${JSON.stringify(value)}`).toBe(
      true,
    );
  });

  test.prop([
    fc.constantFrom(...SCHEMAS.keys()).chain((i) => fc.tuple(fc.constant(i), invalidValue(SCHEMAS[i]!))),
  ])('an invalid value is one it refuses, for the reason given', ([i, { value, why }]) => {
    expect(ajv.validate(SCHEMAS[i]!, value), `${why}: ${JSON.stringify(value)}`).toBe(false);
  });
});
