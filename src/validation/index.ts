export {
  date,
  integer,
  isStorableText,
  list,
  MAX_UNKNOWN_FIELD_FAILURES,
  MISSING_FIELD,
  nullable,
  OMITTED_FAILURES,
  oneOf,
  positiveInteger,
  type StrictObjectOutput,
  StrictObjectType,
  strictObject,
  text,
  UNKNOWN_FIELD,
} from './codecs.js';
export { bodyPointer, type DecodeBodyOptions, decodeJsonBody, decodeJsonBytes } from './decode-body.js';
export { type DecodedQueryValues, decodeQuery, type QueryDecoders } from './decode-query.js';
export { annotate, type CodecMeta, type JsonSchema, metaOf, refine, withSchema } from './describe.js';
export { MAX_ERRORS, MAX_ERRORS_LIMIT } from './error-cap.js';
export { escapePointerToken, toFieldErrors } from './field-errors.js';
export { numericId, stringId } from './id-codecs.js';
export { JSON_SCHEMA_DIALECT, type ToJsonSchemaOptions, toJsonSchema } from './json-schema.js';
export { queryInteger, queryList, querySort } from './query-codecs.js';
export {
  isStandardSchema,
  type JsonSchemaConverter,
  type JsonSchemaRequest,
  type StandardSchemaV1,
} from './standard-schema.js';
