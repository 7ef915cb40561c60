import * as t from 'io-ts';

/** A JSON Schema 2020-12 object (https://json-schema.org/draft/2020-12/json-schema-core). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * What a codec says about itself for documentation and schema generators: the JSON Schema 2020-12
 * annotation keywords (section 9 of the validation vocabulary) it contributes.
 */
export interface CodecMeta {
  /** A sentence for readers of the schema (`description`). */
  readonly description?: string;
  /** A `format` annotation (`date`, `email`, ...); annotation only, as in JSON Schema 2020-12 section 7.2. */
  readonly format?: string;
  /** One valid value (`examples: [example]`). */
  readonly example?: unknown;
  /** A short name (`title`). */
  readonly title?: string;
}

interface Described {
  readonly meta: CodecMeta;
  /**
   * The JSON Schema of the constraint a refinement (or a codec io-ts cannot look inside) enforces, so
   * that schema and codec accept the same values.
   */
  readonly schema?: JsonSchema;
}

const DESCRIBED = new WeakMap<t.Mixed, Described>();

/**
 * Attach documentation to a codec (returned as it is, so types are unchanged).
 *
 * @example const Title = annotate(text({ maxLength: 200 }), { description: 'The title', example: 'Dune' });
 */
export function annotate<C extends t.Mixed>(codec: C, meta: CodecMeta): C {
  const known = DESCRIBED.get(codec);
  DESCRIBED.set(codec, { ...known, meta: { ...known?.meta, ...meta } });
  return codec;
}

/** The documentation attached to a codec with {@link annotate} or by the codec's constructor. */
export function metaOf(codec: t.Mixed): CodecMeta {
  return DESCRIBED.get(codec)?.meta ?? {};
}

/** The JSON Schema of the constraint a codec states about itself (see {@link refine}), if any. */
export function ownSchemaOf(codec: t.Mixed): JsonSchema | undefined {
  return DESCRIBED.get(codec)?.schema;
}

/**
 * Give a codec whose checks io-ts cannot look inside (a hand-written `new t.Type`) its exact JSON
 * Schema, so {@link toJsonSchema} can describe it. The schema must accept exactly what `decode` accepts.
 *
 * @example const Even = withSchema(new t.Type(...), { type: 'integer', multipleOf: 2 });
 */
export function withSchema<C extends t.Mixed>(codec: C, schema: JsonSchema, meta: CodecMeta = {}): C {
  DESCRIBED.set(codec, { meta: { ...DESCRIBED.get(codec)?.meta, ...meta }, schema });
  return codec;
}

/**
 * A refinement of `base` (an io-ts `t.refinement`, so the structure stays walkable) that states its
 * constraint as JSON Schema keywords, merged over `base`'s schema. `name` is the expected form in error
 * details ("an integer from 1 to 100").
 *
 * @example const Even = refine(t.number, (n) => n % 2 === 0, { name: 'an even number', schema: { multipleOf: 2 } });
 */
export function refine<C extends t.Any>(
  base: C,
  predicate: (value: t.TypeOf<C>) => boolean,
  options: { readonly name: string; readonly schema: JsonSchema } & CodecMeta,
): t.RefinementC<C> {
  const { name, schema, ...meta } = options;
  const refined = t.refinement(base, predicate, name);
  DESCRIBED.set(refined, { meta, schema });
  return refined;
}
