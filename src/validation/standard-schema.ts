/**
 * Validators that implement Standard Schema (https://standardschema.dev, `@standard-schema/spec` v1:
 * zod 4, valibot, arktype, ...) wherever an io-ts codec goes: a schema becomes a {@link SchemaCodec},
 * an io-ts codec over the schema's own `validate`, so routes, the body and query decoders, the API
 * description, the linter and the test kit read it as they read any codec. Nothing here imports a
 * validator: a schema is recognized by its `~standard` member alone.
 */

import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type * as t from 'io-ts';
import { isPromise, whenSettled } from '../core/maybe-promise.js';
import type { JsonSchema } from './describe.js';
import { withSchema } from './describe.js';
import { MISSING_FIELD, UNKNOWN_FIELD } from './failure-messages.js';
import { expectedForm, schemaAt, unknownMember } from './schema-forms.js';

export type { StandardSchemaV1 } from '@standard-schema/spec';

/** The JSON Schema dialect every schema given to the API description must be written in. */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** What a {@link JsonSchemaConverter} is asked for. */
export interface JsonSchemaRequest {
  readonly target: 'draft-2020-12';
  /** Which side is wanted: what a client sends (`input`), or what a response holds (`output`). */
  readonly io: 'input' | 'output';
}

/**
 * Gives the JSON Schema 2020-12 of a validator that has no Standard JSON Schema of its own (valibot
 * through `@valibot/to-json-schema`). It may take the validator's own schema type (a method's
 * parameter, so `(schema: GenericSchema) => ...` is accepted).
 *
 * @example jsonSchema: (schema: GenericSchema, { target }) => toJsonSchema(schema, { target })
 */
export type JsonSchemaConverter = {
  convert(schema: StandardSchemaV1, request: JsonSchemaRequest): object;
}['convert'];

/** Whether a value is a Standard Schema v1 validator (an object or, as arktype's, a function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as Partial<StandardSchemaV1>)['~standard'];
  return (
    typeof standard === 'object' &&
    standard !== null &&
    standard.version === 1 &&
    typeof standard.validate === 'function'
  );
}

/**
 * An io-ts codec that validates with a Standard Schema validator: its issues become io-ts failures
 * at the issue's path, classified (missing, unknown, invalid) against the input and the schema's JSON
 * Schema, never carrying the validator's own message (it may name internals). Decoding with it is
 * synchronous; a validator that answers with a promise is awaited by the library's decoders
 * ({@link validateSchema}), and refused by a bare `decode`. It is built without io-ts (the same
 * `Either` shapes), so an app that declares no io-ts codec loads none.
 */
export class SchemaCodec<A = unknown> {
  readonly _tag = 'SchemaCodec' as const;
  /** The form it expects, as error details name it. */
  readonly name: string;
  declare readonly _A: A;

  constructor(
    readonly schema: StandardSchemaV1<unknown, A>,
    /** The JSON Schema 2020-12 of what it accepts, without `$schema`; `{}` when unknown. */
    readonly jsonSchema: JsonSchema,
  ) {
    this.name = expectedForm(jsonSchema);
  }

  is(value: unknown): value is A {
    const result = this.schema['~standard'].validate(value);
    return !isPromise(result) && result.issues === undefined;
  }

  validate(value: unknown, context: t.Context): t.Validation<A> {
    const validation = runSchema(this, value, context);
    if (isPromise(validation))
      throw new TypeError(
        `The ${this.schema['~standard'].vendor} schema validates asynchronously: decode with decodeJsonBody or in a declared route`,
      );
    return validation;
  }

  decode(value: unknown): t.Validation<A> {
    return this.validate(value, rootContext(this, value));
  }

  /** The value as it is: a path id is sent back as its text (`String(value)`). */
  encode(value: A): A {
    return value;
  }

  /** As an io-ts codec, for the places that list codecs (`app.routes()`). */
  asCodec(): t.Type<A, A, unknown> {
    return this as unknown as t.Type<A, A, unknown>;
  }
}

/** The context of a value decoded whole by `codec`: the root, as io-ts names it. */
function rootContext<A>(codec: SchemaCodec<A>, value: unknown): t.Context {
  return [{ key: '', type: codec as unknown as t.Decoder<unknown, A>, actual: value }];
}

/**
 * Runs the codec's validator on `value` and reads its issues as failures under `context`: the
 * validation, or a promise of it only when the validator answers with one. The one run behind
 * {@link SchemaCodec.validate} (which refuses the promise) and {@link validateSchema} (which keeps it).
 */
function runSchema<A>(
  codec: SchemaCodec<A>,
  value: unknown,
  context: t.Context,
): t.Validation<A> | Promise<t.Validation<A>> {
  const { schema, jsonSchema } = codec;
  return whenSettled(schema['~standard'].validate(value), (result): t.Validation<A> => {
    if (result.issues === undefined) return { _tag: 'Right', right: result.value };
    return {
      _tag: 'Left',
      left: result.issues.flatMap((issue) => issueFailures(issue, value, jsonSchema, context)),
    };
  });
}

/**
 * Validate with a codec, awaiting a Standard Schema validator that answers asynchronously: the
 * value as a plain result, or a promise of it only when the validator gave one.
 */
export function validateSchema<A>(
  codec: t.Decoder<unknown, A>,
  value: unknown,
): t.Validation<A> | Promise<t.Validation<A>> {
  if (!(codec instanceof SchemaCodec)) return codec.decode(value);
  const own = codec as unknown as SchemaCodec<A>;
  return runSchema(own, value, rootContext(own, value));
}

/** The path of an issue as property names (a symbol key, which JSON cannot hold, ends it). */
function issueKeys(issue: StandardSchemaV1.Issue): string[] {
  const keys: string[] = [];
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'symbol') break;
    keys.push(String(key));
  }
  return keys;
}

/**
 * The failures one issue stands for. An issue that lists unknown `keys` of the object at its path
 * (zod's `unrecognized_keys`) is one unknown field per key, as the other validators report them.
 */
function issueFailures(
  issue: StandardSchemaV1.Issue,
  input: unknown,
  jsonSchema: JsonSchema,
  context: t.Context,
): t.ValidationError[] {
  const keys = issueKeys(issue);
  const listed = (issue as { readonly keys?: unknown }).keys;
  if (Array.isArray(listed) && listed.length > 0 && listed.every((key) => typeof key === 'string'))
    return listed.map((key: string) => failureAt([...keys, key], input, jsonSchema, context, UNKNOWN_FIELD));
  return [failureAt(keys, input, jsonSchema, context)];
}

/**
 * One failure at `keys`: a member the input lacks is missing, one the object's schema does not
 * allow is unknown, anything else invalid, expecting the form its schema describes.
 */
function failureAt(
  keys: readonly string[],
  input: unknown,
  jsonSchema: JsonSchema,
  context: t.Context,
  known?: string,
): t.ValidationError {
  let parent: unknown;
  let value = input;
  let schema: JsonSchema | undefined = jsonSchema;
  let parentSchema: JsonSchema | undefined;
  const entries: t.ContextEntry[] = [...context];
  for (const key of keys) {
    // An array where the schema wants an object (valibot reads one's members as fields): the
    // problem is the array itself, as the other validators report it.
    if (Array.isArray(value) && schema?.type === 'object') return { value, context: entries };
    parent = value;
    parentSchema = schema;
    value =
      isContainer(parent) && Object.hasOwn(parent, key)
        ? (parent as Record<string, unknown>)[key]
        : undefined;
    schema = schema === undefined ? undefined : schemaAt(schema, key);
    // Only the name matters to the error details: the form expected at this point.
    entries.push({
      key,
      type: { name: expectedForm(schema ?? {}) } as t.Decoder<unknown, unknown>,
      actual: value,
    });
  }
  const last = keys.at(-1);
  let message = known;
  if (message === undefined && last !== undefined && isContainer(parent)) {
    if (!Object.hasOwn(parent, last)) message = MISSING_FIELD;
    else if (parentSchema !== undefined && unknownMember(parentSchema, last)) message = UNKNOWN_FIELD;
  }
  return { value, context: entries, ...(message === undefined ? {} : { message }) };
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * The codec for a Standard Schema validator, with the JSON Schema 2020-12 of its `io` side: from its
 * Standard JSON Schema (`~standard.jsonSchema`: zod 4.2+, arktype) or else `convert`. Throws a
 * `TypeError` naming `where` when neither can give one, so no route is left out of the description.
 */
export function schemaCodec<A>(
  schema: StandardSchemaV1<unknown, A>,
  io: 'input' | 'output',
  where: string,
  convert?: JsonSchemaConverter,
): SchemaCodec<A> {
  const own = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  let described: object;
  try {
    if (own !== undefined && typeof own[io] === 'function') described = own[io]({ target: 'draft-2020-12' });
    else if (convert !== undefined) described = convert(schema, { target: 'draft-2020-12', io });
    else
      throw new TypeError(
        `the ${schema['~standard'].vendor} schema gives no JSON Schema (Standard JSON Schema); pass a converter as the jsonSchema option`,
      );
  } catch (error) {
    throw new TypeError(`${where}: ${(error as Error).message}`);
  }
  if (typeof described !== 'object' || described === null)
    throw new TypeError(`${where}: the JSON Schema converter gave no schema object`);
  const { $schema: dialect, ...jsonSchema } = described as JsonSchema;
  if (dialect !== undefined && dialect !== DIALECT)
    throw new TypeError(`${where}: the JSON Schema is ${String(dialect)}; the description needs ${DIALECT}`);
  const codec = new SchemaCodec(schema, jsonSchema);
  withSchema(codec.asCodec(), jsonSchema);
  return codec;
}

/**
 * A codec or validator as the decoders take it: a Standard Schema validator given straight to a
 * decoder (`decodeJsonBody`, `decodeQuery`) decodes through a codec made once per schema, with its
 * JSON Schema if it has one.
 */
export function decoderOf<A>(
  codec: t.Decoder<unknown, A> | StandardSchemaV1<unknown, A>,
): t.Decoder<unknown, A> {
  return isStandardSchema(codec) ? decodingCodec(codec).asCodec() : codec;
}

// biome-ignore lint/suspicious/noExplicitAny: codecs of any output
const direct = new WeakMap<object, SchemaCodec<any>>();
function decodingCodec<A>(schema: StandardSchemaV1<unknown, A>): SchemaCodec<A> {
  let codec = direct.get(schema) as SchemaCodec<A> | undefined;
  if (codec === undefined) {
    try {
      codec = schemaCodec(schema, 'input', 'decoder');
    } catch {
      // Without a JSON Schema an issue is missing or invalid, never unknown, and expects "a valid value".
      codec = new SchemaCodec(schema, {});
      withSchema(codec.asCodec(), {});
    }
    direct.set(schema, codec);
  }
  return codec;
}
