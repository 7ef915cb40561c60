import fc from 'fast-check';
import { resolveRef } from '../openapi/refs.js';
import type { JsonSchema, OpenApiDocument, OpenApiMediaType } from '../openapi/types.js';
import type { Schema as KeywordsOf } from './schema-arbitrary.js';

type Schema = KeywordsOf & {
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};

/** The fixed seed simple values are drawn with, when a pattern leaves no simpler way. */
const PATTERN_SEED = 1;

/**
 * The bodies a media type's document offers, best first: its `example`, its named `examples`, the
 * schema's own `examples`/`example`, and last the simplest value the schema accepts (required
 * members only, numbers at their lower bound, the first enum member): the one a human would write.
 */
export function exampleBodies(media: OpenApiMediaType, document: OpenApiDocument): unknown[] {
  const named = (media as { examples?: Record<string, { value?: unknown }> }).examples;
  const schema = media.schema === undefined ? undefined : (resolveRef(document, media.schema) as Schema);
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(named ?? {})
      .map((e) => resolveRef(document, e).value)
      .filter((v) => v !== undefined),
    ...(schema?.examples ?? []),
    ...(schema?.example === undefined ? [] : [schema.example]),
    ...(media.schema === undefined ? [] : [simplestValue(media.schema, document)]),
  ];
}

/** The simplest value a schema accepts (see {@link exampleBodies}); `null` where none is found. */
export function simplestValue(schema: JsonSchema, document: OpenApiDocument, depth = 0): unknown {
  const s = resolveRef(document, schema) as Schema;
  if (depth > 8) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum !== undefined && s.enum.length > 0) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const branch = s.allOf?.[0] ?? s.oneOf?.[0] ?? s.anyOf?.[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === undefined) return branch === undefined ? null : simplestValue(branch, document, depth + 1);
  switch (type) {
    case 'integer':
    case 'number': {
      const low =
        s.minimum ?? (s.exclusiveMinimum === undefined ? undefined : Math.floor(s.exclusiveMinimum) + 1);
      return low ?? Math.min(1, s.maximum ?? 1);
    }
    case 'boolean':
      return true;
    case 'string':
      return simplestText(s);
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () =>
        s.items === undefined ? null : simplestValue(s.items, document, depth + 1),
      );
    case 'object': {
      const properties = s.properties ?? {};
      return Object.fromEntries(
        (s.required ?? [])
          .filter((name) => name in properties)
          .map((name) => [name, simplestValue(properties[name]!, document, depth + 1)]),
      );
    }
    default:
      return null;
  }
}

function simplestText(s: Schema): string {
  if (s.format === 'date') return '2024-01-01';
  if (s.format === 'date-time') return '2024-01-01T00:00:00Z';
  if (s.format === 'email') return 'kit@example.com';
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (s.pattern !== undefined) {
    const [drawn] = fc.sample(
      fc
        .stringMatching(new RegExp(s.pattern, 'u'))
        .filter(
          (v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Number.MAX_SAFE_INTEGER),
        ),
      { numRuns: 1, seed: PATTERN_SEED },
    );
    return drawn ?? '';
  }
  return 'a'.repeat(Math.max(s.minLength ?? 1, 1));
}

/**
 * Another value the schema accepts, differing from `value` in one member (a number one up or
 * down, another enum member, a longer text): a second body, or an update that changes something.
 * `undefined` when the schema leaves nothing to change.
 */
export function changedValue(value: unknown, schema: JsonSchema, document: OpenApiDocument): unknown {
  const s = resolveRef(document, schema) as Schema;
  if (s.enum !== undefined) return s.enum.find((v) => JSON.stringify(v) !== JSON.stringify(value));
  if (typeof value === 'number') {
    const max =
      s.maximum ?? (s.exclusiveMaximum === undefined ? Number.MAX_SAFE_INTEGER : s.exclusiveMaximum - 1);
    const min =
      s.minimum ?? (s.exclusiveMinimum === undefined ? Number.MIN_SAFE_INTEGER : s.exclusiveMinimum + 1);
    return value + 1 <= max ? value + 1 : value - 1 >= min ? value - 1 : undefined;
  }
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string' && s.pattern === undefined && s.format === undefined)
    return value.length < (s.maxLength ?? Number.MAX_SAFE_INTEGER) ? `${value}b` : undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const properties = s.properties ?? {};
    for (const [name, member] of Object.entries(value)) {
      const child = properties[name];
      const changed = child === undefined ? undefined : changedValue(member, child, document);
      if (changed !== undefined) return { ...value, [name]: changed };
    }
  }
  return undefined;
}
