import * as t from 'io-ts';
import { StrictObjectType } from './codecs.js';
import { type CodecMeta, type JsonSchema, metaOf, ownSchemaOf } from './describe.js';

/** The dialect every derived schema declares (JSON Schema 2020-12). */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export interface ToJsonSchemaOptions {
  /**
   * Where the codec is used, for the error message when it cannot be described
   * (e.g. `route POST /orders: body`). Default `toJsonSchema`.
   */
  readonly where?: string;
}

function annotations(meta: CodecMeta): JsonSchema {
  return {
    ...(meta.title === undefined ? {} : { title: meta.title }),
    ...(meta.description === undefined ? {} : { description: meta.description }),
    ...(meta.format === undefined ? {} : { format: meta.format }),
    ...(meta.example === undefined ? {} : { examples: [meta.example] }),
  };
}

function objectSchema(props: t.Props, required: readonly string[], path: string, where: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, codec] of Object.entries(props)) properties[key] = walk(codec, `${path}/${key}`, where);
  return { type: 'object', properties, ...(required.length > 0 ? { required: [...required] } : {}) };
}

function cannot(codec: t.Mixed, path: string, where: string, reason: string): never {
  throw new TypeError(
    `${where}: codec "${codec.name}"${path === '' ? '' : ` at ${path}`} cannot be described as JSON Schema: ${reason}.`,
  );
}

/** The structural part of a codec's schema, before its own annotations. */
function structure(codec: t.Mixed, path: string, where: string): JsonSchema {
  const own = ownSchemaOf(codec);
  if (codec instanceof StrictObjectType) {
    const strict = codec as StrictObjectType<t.Props, t.Props>;
    return {
      ...objectSchema({ ...strict.optional, ...strict.required }, Object.keys(strict.required), path, where),
      additionalProperties: false,
    };
  }
  if (codec instanceof t.RefinementType) {
    if (codec === (t.Int as t.Mixed)) return { type: 'integer' };
    if (own === undefined)
      cannot(codec, path, where, 'a refinement must state its constraint (build it with refine())');
    return { ...structure(codec.type, path, where), ...own };
  }
  if (own !== undefined) return own;
  if (codec instanceof t.StringType) return { type: 'string' };
  if (codec instanceof t.NumberType) return { type: 'number' };
  if (codec instanceof t.BooleanType) return { type: 'boolean' };
  if (codec instanceof t.NullType) return { type: 'null' };
  if (codec instanceof t.UnknownType) return {};
  if (codec instanceof t.AnyDictionaryType) return { type: 'object' };
  if (codec instanceof t.AnyArrayType) return { type: 'array' };
  if (codec instanceof t.LiteralType) return { const: codec.value };
  if (codec instanceof t.KeyofType) return { enum: Object.keys(codec.keys) };
  if (codec instanceof t.UnionType)
    return {
      anyOf: (codec.types as t.Mixed[]).map((member, i) => walk(member, `${path}/anyOf/${i}`, where)),
    };
  if (codec instanceof t.IntersectionType)
    return {
      allOf: (codec.types as t.Mixed[]).map((member, i) => walk(member, `${path}/allOf/${i}`, where)),
    };
  if (codec instanceof t.ArrayType || codec instanceof t.ReadonlyArrayType)
    return { type: 'array', items: walk(codec.type, `${path}/items`, where) };
  if (codec instanceof t.InterfaceType)
    return objectSchema(codec.props, Object.keys(codec.props), path, where);
  if (codec instanceof t.PartialType) return objectSchema(codec.props, [], path, where);
  // t.exact strips unknown fields instead of refusing them, so they are valid input: same schema.
  if (codec instanceof t.ExactType || codec instanceof t.ReadonlyType) return walk(codec.type, path, where);
  return cannot(
    codec,
    path,
    where,
    'io-ts cannot look inside it; build it from io-ts combinators or give it a schema with withSchema()',
  );
}

function walk(codec: t.Mixed, path: string, where: string): JsonSchema {
  return { ...structure(codec, path, where), ...annotations(metaOf(codec)) };
}

/**
 * The JSON Schema 2020-12 of what `codec.decode` accepts, derived from its io-ts structure
 * (`t.string`, `t.number`, `t.boolean`, `t.null`, `t.literal`, `t.keyof`, `t.union`, `t.array`,
 * `t.type`, `t.partial`, `t.exact`, `t.intersection`, `t.readonly`, `t.Int`), this library's codecs
 * and anything built with `refine()` or `withSchema()`, with the annotations of `annotate()`.
 * Throws a `TypeError` naming `where` and the codec's position when a part cannot be described.
 *
 * @example toJsonSchema(strictObject({ bookId: positiveInteger }))
 * // { $schema: '…/2020-12/schema', type: 'object', properties: { bookId: { type: 'integer', minimum: 1, … } },
 * //   required: ['bookId'], additionalProperties: false }
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 */
export function toJsonSchema(codec: t.Mixed, options: ToJsonSchemaOptions = {}): JsonSchema {
  const where = options.where ?? 'toJsonSchema';
  return { $schema: JSON_SCHEMA_DIALECT, ...walk(codec, '', where) };
}
