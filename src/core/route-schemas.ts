/**
 * What validates a declared route's input: io-ts codecs, the library's own, and any Standard Schema
 * v1 validator (https://standardschema.dev), with the type each decodes to.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type * as t from 'io-ts';

export type { StandardSchemaV1 };

/** Any io-ts codec that decodes from `unknown` (what a path segment, query value or body is). */
// biome-ignore lint/suspicious/noExplicitAny: codecs of any output and encoded type
export type AnyCodec = t.Type<any, any, unknown>;

/**
 * What validates a route's input: an io-ts codec, or any Standard Schema validator (zod, valibot,
 * arktype: https://standardschema.dev), typed by its output.
 */
export type AnySchema = AnyCodec | StandardSchemaV1;

/** What a codec or a Standard Schema validator decodes to. */
export type OutputOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends AnyCodec
    ? t.TypeOf<S>
    : never;

/** What a declared parameter's schema decodes to; the text itself when it is not a schema. */
export type OutputOrText<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends AnyCodec
    ? t.TypeOf<S>
    : string;

/**
 * What each declared schema must be: a Standard Schema validator is left as it is, anything else
 * must be an io-ts codec. Checked member by member, never by intersecting a validator's type with
 * an io-ts codec's: for a validator as rich as arktype's `Type`, that intersection exceeds
 * TypeScript's instantiation depth (TS2589).
 */
export type SchemasOf<C> = { readonly [K in keyof C]: SchemaCheck<C[K]> };
/**
 * What {@link SchemasOf} asks of one entry: any Standard Schema, or else an io-ts codec. Distributes
 * over a union: a value typed `AnySchema` passes.
 */
export type SchemaCheck<S> = S extends StandardSchemaV1 ? unknown : AnyCodec;

/** Codecs by name as `app.routes()` lists them: a Standard Schema validator as its io-ts codec. */
export type ListedCodecs = Readonly<Record<string, AnyCodec>>;
