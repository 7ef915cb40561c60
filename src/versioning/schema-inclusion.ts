import type { JsonSchema } from '../validation/describe.js';

/**
 * Whether every value a JSON Schema accepts is accepted by another, for the schemas `toJsonSchema`
 * derives from leaf codecs: `type`, `const`, `enum`, `anyOf`, numeric bounds, string lengths and
 * patterns, array bounds and `items`. A keyword this check does not know makes it answer `false`
 * unless both schemas state it identically (a conservative answer: "maybe breaking").
 */
export function covers(outer: JsonSchema, inner: JsonSchema): boolean {
  if (Array.isArray(inner.anyOf))
    return (inner.anyOf as JsonSchema[]).every((member) => covers(outer, member));
  if (Array.isArray(outer.anyOf))
    return (outer.anyOf as JsonSchema[]).some((member) => covers(member, inner));
  const values = valuesOf(inner);
  if (values !== undefined) return values.every((value) => satisfies(value, outer));
  if (valuesOf(outer) !== undefined) return false;
  if (outer.type !== undefined && !typeIncludes(outer.type, inner.type)) return false;
  return (
    lowerBound(outer, 'minimum') <= lowerBound(inner, 'minimum') &&
    upperBound(outer, 'maximum') >= upperBound(inner, 'maximum') &&
    lowerBound(outer, 'exclusiveMinimum') <= lowerBound(inner, 'exclusiveMinimum') &&
    upperBound(outer, 'exclusiveMaximum') >= upperBound(inner, 'exclusiveMaximum') &&
    lowerBound(outer, 'minLength') <= lowerBound(inner, 'minLength') &&
    upperBound(outer, 'maxLength') >= upperBound(inner, 'maxLength') &&
    lowerBound(outer, 'minItems') <= lowerBound(inner, 'minItems') &&
    upperBound(outer, 'maxItems') >= upperBound(inner, 'maxItems') &&
    patternsOf(outer).every((pattern) => patternsOf(inner).includes(pattern)) &&
    (outer.items === undefined ||
      (inner.items !== undefined && covers(outer.items as JsonSchema, inner.items as JsonSchema))) &&
    unknownKeywordsMatch(outer, inner)
  );
}

/**
 * Whether `is` accepts fewer values of the same kind as `was` (bounds, lengths, patterns, enum members,
 * `null` dropped) rather than values of another type.
 */
export function isNarrowing(was: JsonSchema, is: JsonSchema): boolean {
  const kinds = (schema: JsonSchema): Set<string> => {
    if (Array.isArray(schema.anyOf))
      return new Set((schema.anyOf as JsonSchema[]).flatMap((m) => [...kinds(m)]));
    const values = valuesOf(schema);
    if (values !== undefined) return new Set(values.map(jsonType));
    return new Set(typeof schema.type === 'string' ? [schema.type] : []);
  };
  const after = kinds(is);
  return [...after].every((kind) => kinds(was).has(kind));
}

const KNOWN = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'allOf',
  'items',
  'title',
  'description',
  'examples',
  'format',
]);

function unknownKeywordsMatch(outer: JsonSchema, inner: JsonSchema): boolean {
  return Object.keys(outer)
    .filter((keyword) => !KNOWN.has(keyword))
    .every((keyword) => JSON.stringify(outer[keyword]) === JSON.stringify(inner[keyword]));
}

function valuesOf(schema: JsonSchema): readonly unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

function typeIncludes(outer: unknown, inner: unknown): boolean {
  return outer === inner || (outer === 'number' && inner === 'integer');
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function lowerBound(schema: JsonSchema, keyword: string): number {
  return typeof schema[keyword] === 'number' ? (schema[keyword] as number) : Number.NEGATIVE_INFINITY;
}

function upperBound(schema: JsonSchema, keyword: string): number {
  return typeof schema[keyword] === 'number' ? (schema[keyword] as number) : Number.POSITIVE_INFINITY;
}

/** `pattern` and the patterns of `allOf` members (how `text()` states several). */
function patternsOf(schema: JsonSchema): string[] {
  const own = typeof schema.pattern === 'string' ? [schema.pattern] : [];
  const members = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]).flatMap(patternsOf) : [];
  return [...own, ...members];
}

/** Whether one JSON value satisfies a leaf schema (the keywords `covers` knows). */
function satisfies(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).some((m) => satisfies(value, m));
  const values = valuesOf(schema);
  if (values !== undefined && !values.some((v) => JSON.stringify(v) === JSON.stringify(value))) return false;
  if (schema.type !== undefined && !typeIncludes(schema.type, jsonType(value))) return false;
  if (typeof value === 'number')
    return (
      value >= lowerBound(schema, 'minimum') &&
      value <= upperBound(schema, 'maximum') &&
      value > lowerBound(schema, 'exclusiveMinimum') &&
      value < upperBound(schema, 'exclusiveMaximum')
    );
  if (typeof value === 'string') {
    const length = [...value].length;
    return (
      length >= lowerBound(schema, 'minLength') &&
      length <= upperBound(schema, 'maxLength') &&
      patternsOf(schema).every((pattern) => new RegExp(pattern, 'u').test(value))
    );
  }
  return true;
}
