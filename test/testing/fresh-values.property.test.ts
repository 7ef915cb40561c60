/**
 * The members that name something (an anchored pattern, a uuid or email format) are drawn afresh for
 * every create: each value is one an independent validator accepts, none repeats within a run, and
 * every other member keeps the value it had. This is what lets the kit create a standard, whose
 * `code` is unique, again and again against one server.
 */
import { fc, test } from '@fast-check/vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { StandardCreate } from '../../examples/reference-app/standards/standards-routes.js';
import type { JsonSchema } from '../../src/openapi/types.js';
import { freshValues } from '../../src/testing/index.js';
import { strictObject, text, toJsonSchema } from '../../src/validation/index.js';

const ajv = new Ajv2020({ strict: false });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
// RFC 5321's addr-spec, in the simple form ajv-formats checks.
ajv.addFormat(
  'email',
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i,
);
const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} };

/** Bodies with members that name something (`code`, `slug`, `id`, `email`) and members that do not. */
const BODIES: ReadonlyArray<{ schema: JsonSchema; body: Record<string, unknown>; naming: string[] }> = [
  {
    schema: toJsonSchema(StandardCreate) as JsonSchema,
    body: { code: 'RFC-9110', name: 'HTTP' },
    naming: ['code'],
  },
  {
    schema: toJsonSchema(
      strictObject({
        slug: text({ maxLength: 12, pattern: /^[a-z][a-z0-9-]{2,11}$/ }),
        title: text({ maxLength: 20, pattern: /\S/ }),
      }),
    ) as JsonSchema,
    body: { slug: 'water', title: 'Water the plants' },
    naming: ['slug'],
  },
  {
    schema: {
      type: 'object',
      properties: {
        id: { type: 'string', format: 'uuid' },
        email: { type: 'string', format: 'email' },
        sku: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{4}$' },
        kind: { enum: ['a', 'b'] },
        stars: { type: 'integer', minimum: 1 },
      },
    },
    body: {
      id: '00000000-0000-4000-8000-000000000000',
      email: 'x@example.com',
      sku: 'AB-0001',
      kind: 'a',
      stars: 2,
    },
    naming: ['id', 'email', 'sku'],
  },
];

describe('fresh values for the members that name something', () => {
  // Each draw samples a pattern 30 times: few runs keep the file quick.
  test.prop([fc.constantFrom(...BODIES.keys()), fc.integer({ min: 2, max: 20 })], { numRuns: 20 })(
    'valid, never repeated in a run, and the other members kept',
    (i, count) => {
      const { schema, body, naming } = BODIES[i]!;
      const taken = new Set<string>();
      const seen = naming.map(() => new Set<unknown>([undefined]));
      for (let n = 0; n < count; n++) {
        const fresh = freshValues(body, schema, document, taken) as Record<string, unknown>;
        expect(ajv.validate(schema, fresh), `${JSON.stringify(fresh)}: ${ajv.errorsText()}`).toBe(true);
        naming.forEach((name, j) => {
          expect(seen[j]!.has(fresh[name]), `${name} repeated: ${String(fresh[name])}`).toBe(false);
          seen[j]!.add(fresh[name]);
        });
        for (const [name, value] of Object.entries(body))
          if (!naming.includes(name)) expect(fresh[name]).toEqual(value);
      }
    },
  );

  it('reaches the attributes of a JSON:API document', () => {
    const attributes = toJsonSchema(StandardCreate) as JsonSchema;
    const schema = {
      type: 'object',
      properties: { data: { type: 'object', properties: { type: { const: 'standards' }, attributes } } },
    };
    const body = { data: { type: 'standards', attributes: { code: 'RFC-9110', name: 'HTTP' } } };
    const fresh = freshValues(body, schema, document, new Set()) as typeof body;
    expect(fresh.data.type).toBe('standards');
    expect(fresh.data.attributes.name).toBe('HTTP');
    expect(fresh.data.attributes.code).not.toBe('RFC-9110');
    expect(ajv.validate(attributes, fresh.data.attributes)).toBe(true);
  });

  it('leaves a member whose pattern it cannot draw from as it was', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(?=A)[A-Z]+$' } } };
    expect(freshValues({ code: 'AB' }, schema, document, new Set())).toEqual({ code: 'AB' });
  });
});
