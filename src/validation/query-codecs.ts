import * as t from 'io-ts';
import { withSchema } from './describe.js';
import { integerFormat } from './integer-format.js';

const DIGITS = /^-?\d{1,16}$/;

/**
 * A query parameter holding an integer (`page[size]=20`), optionally within bounds. Query values are
 * strings, so this decodes the text; `1.5`, `1e3`, ` 2` and `""` are refused. Its JSON Schema
 * describes the parameter's value as OpenAPI does (`{ type: 'integer', format, minimum, maximum }`, written in
 * decimal in the query).
 */
export function queryInteger(
  bounds: { readonly min?: number; readonly max?: number } = {},
): t.Type<number, string, unknown> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const name =
    bounds.min !== undefined && bounds.max !== undefined ? `an integer from ${min} to ${max}` : 'an integer';
  const codec = new t.Type<number, string, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= min && u <= max,
    (u, c) => {
      if (typeof u !== 'string' || !DIGITS.test(u)) return t.failure(u, c);
      const n = Number(u);
      return Number.isSafeInteger(n) && n >= min && n <= max ? t.success(n) : t.failure(u, c);
    },
    String,
  );
  return withSchema(codec, { type: 'integer', format: integerFormat(min, max), minimum: min, maximum: max });
}

/**
 * A comma-separated list of allowed tokens (`filter[status]=draft,published`,
 * `fields[standards]=name,code`). Empty members and unknown tokens are refused; duplicates collapse.
 * A list of more members than there are tokens is refused: it can only be repeats, and the bound is
 * what the document states (`maxItems`, OWASP API4:2023). JSON Schema: a non-empty array of the tokens,
 * at most as many as there are tokens.
 */
export function queryList<const V extends readonly [string, ...string[]]>(
  values: V,
): t.Type<ReadonlyArray<V[number]>, string, unknown> {
  const allowed = new Set<string>(values);
  const codec = new t.Type<ReadonlyArray<V[number]>, string, unknown>(
    `a comma-separated list of ${values.join(', ')}`,
    (u): u is ReadonlyArray<V[number]> => Array.isArray(u) && u.every((v) => allowed.has(v)),
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c);
      const items = u.split(',');
      if (items.length > values.length || items.some((item) => !allowed.has(item))) return t.failure(u, c);
      return t.success([...new Set(items)] as V[number][]);
    },
    (list) => list.join(','),
  );
  return withSchema(codec, {
    type: 'array',
    items: { enum: [...values] },
    minItems: 1,
    maxItems: values.length,
  });
}

/**
 * A JSON:API `sort` parameter over the given fields: comma-separated, `-` for descending
 * (JSON:API 1.0 "Sorting"). Decodes to `[{ field, descending }]`. JSON Schema: a non-empty array
 * of `field` or `-field` naming each field at most once (`maxContains`, OpenAPI `style: form,
 * explode: false`).
 */
export function querySort<const F extends readonly [string, ...string[]]>(
  fields: F,
): t.Type<ReadonlyArray<{ readonly field: F[number]; readonly descending: boolean }>, string, unknown> {
  const allowed = new Set<string>(fields);
  type Key = { readonly field: F[number]; readonly descending: boolean };
  const codec = new t.Type<ReadonlyArray<Key>, string, unknown>(
    `a comma-separated list of ${fields.join(', ')}, each optionally prefixed with "-"`,
    (u): u is ReadonlyArray<Key> => Array.isArray(u),
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c);
      const keys: Key[] = [];
      const seen = new Set<string>();
      for (const item of u.split(',')) {
        const descending = item.startsWith('-');
        const field = descending ? item.slice(1) : item;
        if (!allowed.has(field) || seen.has(field)) return t.failure(u, c);
        seen.add(field);
        keys.push({ field: field as F[number], descending });
      }
      return t.success(keys);
    },
    (keys) => keys.map((k) => (k.descending ? `-${k.field}` : k.field)).join(','),
  );
  const forms = (field: string) => [field, `-${field}`];
  return withSchema(codec, {
    type: 'array',
    items: { enum: fields.flatMap(forms) },
    minItems: 1,
    // Each field at most once, so at most one member per field.
    maxItems: fields.length,
    // Each field at most once: no field is contained twice. Said with `not` rather than an `allOf` of
    // arrays, so API tools still see a plain array of the enum (a generated client types it so, and
    // Spectral's `array-items` finds no array schema without `items`).
    not: { anyOf: fields.map((field) => ({ contains: { enum: forms(field) }, minContains: 2 })) },
  });
}
