import fc from 'fast-check';
import { resolveRef } from '../openapi/refs.js';
import type { JsonSchema, OpenApiDocument } from '../openapi/types.js';

/** The JSON Schema keywords the kit reads (2020-12, the subset API descriptions use). */
export type Schema = {
  /** Every pattern of the schema and its `allOf` branches (see `merged`). */
  patterns?: string[];
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  $ref?: string;
  not?: JsonSchema;
  contains?: JsonSchema;
  minContains?: number;
};

/**
 * Values a JSON Schema (2020-12, the subset API descriptions use) accepts: types, `enum`, `const`,
 * bounds, lengths, `pattern`, objects with `properties`/`required`/`additionalProperties`, arrays,
 * `oneOf`/`anyOf`, local `$ref`s. Unknown constraints are ignored, so a value may still be refused
 * by a stricter validator: properties check the server's answer, not the generator's guess.
 */
export function validValue(schema: JsonSchema, document?: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  const s = merged((document ? resolveRef(document, schema) : schema) as Schema, document);
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum !== undefined) return fc.constantFrom(...s.enum);
  const branches = s.oneOf ?? s.anyOf;
  if (branches !== undefined && branches.length > 0) {
    return fc.oneof(...branches.map((b) => validValue(b, document, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type : s.type === undefined ? undefined : [s.type];
  if (type === undefined) return fc.jsonValue({ maxDepth: 2 });
  const values = fc.oneof(...type.map((t) => ofType(t, s, document, depth)));
  // `not` as this library writes it (a list's field at most once): values it excludes are left out.
  const excluded = s.not;
  return excluded === undefined ? values : values.filter((v) => !plainlyMatches(excluded as Schema, v));
}

/**
 * Whether a value matches a schema of `anyOf`, `contains`/`minContains`, `enum` and `const` (the
 * keywords of the `not` this library writes); any other keyword makes it not match, so nothing more
 * is left out than a schema says.
 */
function plainlyMatches(s: Schema, value: unknown): boolean {
  if (s.anyOf !== undefined) return s.anyOf.some((branch) => plainlyMatches(branch as Schema, value));
  if (s.contains !== undefined) {
    if (!Array.isArray(value)) return false;
    const count = value.filter((item) => plainlyMatches(s.contains as Schema, item)).length;
    return count >= (s.minContains ?? 1);
  }
  if (s.enum !== undefined) return s.enum.some((member) => JSON.stringify(member) === JSON.stringify(value));
  if (s.const !== undefined) return JSON.stringify(s.const) === JSON.stringify(value);
  return false;
}

/** A schema with its `allOf` branches folded in: patterns collected, other keywords overlaid. */
export function merged(s: Schema, document: OpenApiDocument | undefined): Schema {
  if (s.allOf === undefined) return s;
  let out: Schema = { ...s, allOf: undefined, patterns: s.pattern === undefined ? [] : [s.pattern] };
  for (const branch of s.allOf) {
    const b = merged((document ? resolveRef(document, branch) : branch) as Schema, document);
    const patterns = [
      ...(out.patterns ?? []),
      ...(b.patterns ?? (b.pattern === undefined ? [] : [b.pattern])),
    ];
    out = { ...b, ...out, patterns };
    if (out.pattern === undefined && patterns.length > 0) out.pattern = patterns[0];
  }
  return out;
}

function ofType(
  type: string,
  s: Schema,
  document: OpenApiDocument | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000);
      return fc.integer({
        min: Math.max(min, Number.MIN_SAFE_INTEGER),
        max: Math.min(max, Number.MAX_SAFE_INTEGER),
      });
    }
    case 'number':
      return fc.double({
        min: s.minimum ?? -1e6,
        max: s.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string': {
      if (s.format === 'date') {
        return fc
          .date({
            min: new Date(Date.UTC(1900, 0, 1)),
            max: new Date(Date.UTC(2100, 0, 1)),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString().slice(0, 10));
      }
      if (s.format === 'date-time') {
        return fc
          .date({
            min: new Date(Date.UTC(1900, 0, 1)),
            max: new Date(Date.UTC(2100, 0, 1)),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString());
      }
      if (s.pattern !== undefined) {
        const min = s.minLength ?? 0;
        const max = s.maxLength ?? Number.POSITIVE_INFINITY;
        const all = (s.patterns ?? [s.pattern]).map((p) => new RegExp(p, 'u'));
        // Draw from the most specific (anchored) pattern; the others and the lengths filter.
        const anchored = (s.patterns ?? [s.pattern]).find((p) => p.startsWith('^')) ?? s.pattern;
        return fc
          .stringMatching(new RegExp(anchored))
          .filter((v) => [...v].length >= min && [...v].length <= max && all.every((re) => re.test(v)));
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 200) });
    }
    case 'array':
      return fc.array(s.items ? validValue(s.items, document, depth + 1) : fc.jsonValue({ maxDepth: 1 }), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 4, 8),
      });
    case 'object': {
      const properties = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, child] of Object.entries(properties))
        model[name] = validValue(child, document, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((name) => name in properties) });
    }
    default:
      return fc.constant(null);
  }
}

/** How a value was made invalid, for the shrunk report. */
export interface InvalidValue {
  readonly value: unknown;
  readonly why: string;
}

/**
 * Values the schema refuses, each with the reason: the wrong type, out of bounds, too long, an
 * unknown member where none is allowed, a required member missing, a value outside the enum.
 * Empty (`fc.constant` of nothing) never: when nothing can be refused, the wrong type always can.
 */
export function invalidValue(
  schema: JsonSchema,
  document?: OpenApiDocument,
  how: { readonly asText?: boolean } = {},
): fc.Arbitrary<InvalidValue> {
  const s = (document ? resolveRef(document, schema) : schema) as Schema;
  const options: fc.Arbitrary<InvalidValue>[] = [];
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  // Sent as text (a query or path parameter), any value of another type is a valid string.
  if (types.length > 0 && !(how.asText === true && types.includes('string'))) {
    const wrong = [
      { type: 'string', value: 'not-a-number' },
      { type: 'integer', value: 1.5 },
      { type: 'boolean', value: true },
      { type: 'object', value: { unexpected: true } },
      { type: 'array', value: [1, 2] },
      { type: 'null', value: null },
    ].filter((w) => !types.includes(w.type) && !(w.type === 'integer' && types.includes('number')));
    if (types.includes('integer')) wrong.push({ type: 'number', value: 1.5 });
    options.push(
      fc.constantFrom(
        ...wrong.map((w) => ({ value: w.value, why: `a ${w.type} where ${types.join('|')} is declared` })),
      ),
    );
  }
  if (s.enum !== undefined)
    options.push(fc.constant({ value: '__not_in_enum__', why: 'a value outside the enum' }));
  if (typeof s.minimum === 'number')
    options.push(fc.constant({ value: s.minimum - 1, why: `below the minimum ${s.minimum}` }));
  if (typeof s.maximum === 'number')
    options.push(fc.constant({ value: s.maximum + 1, why: `above the maximum ${s.maximum}` }));
  if (typeof s.maxLength === 'number') {
    options.push(
      fc.constant({ value: 'x'.repeat(s.maxLength + 1), why: `longer than maxLength ${s.maxLength}` }),
    );
  }
  if (typeof s.minLength === 'number' && s.minLength > 0) {
    options.push(fc.constant({ value: '', why: `shorter than minLength ${s.minLength}` }));
  }
  if (types.includes('object')) {
    const properties = s.properties ?? {};
    const required = (s.required ?? []).filter((name) => name in properties);
    const complete = fc.record(
      Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, validValue(v, document)])),
      { requiredKeys: required },
    );
    if (s.additionalProperties === false) {
      options.push(
        complete.map((v) => ({ value: { ...(v as object), unexpectedField: 1 }, why: 'an unknown member' })),
      );
    }
    for (const name of required) {
      options.push(
        complete.map((v) => {
          const copy = { ...(v as Record<string, unknown>) };
          delete copy[name];
          return { value: copy, why: `required member "${name}" missing` };
        }),
      );
    }
    for (const [name, child] of Object.entries(properties)) {
      options.push(
        fc.tuple(complete, invalidValue(child, document)).map(([v, bad]) => ({
          value: { ...(v as object), [name]: bad.value },
          why: `member "${name}": ${bad.why}`,
        })),
      );
    }
  }
  if (options.length === 0)
    return fc.constant({ value: { unexpected: [] }, why: 'an object where anything else is declared' });
  return fc.oneof(...options);
}
