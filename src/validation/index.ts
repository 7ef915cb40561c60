export {
  integer,
  MISSING_FIELD,
  nullable,
  oneOf,
  positiveInteger,
  strictObject,
  text,
  UNKNOWN_FIELD,
} from './codecs.js';
export { bodyPointer, type DecodeBodyOptions, decodeJsonBody } from './decode-body.js';
export { decodeQuery } from './decode-query.js';
export { escapePointerToken, toFieldErrors } from './field-errors.js';
export { queryInteger, queryList, querySort } from './query-codecs.js';
