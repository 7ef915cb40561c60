/**
 * The 415 a JSON:API request body earns by its `Content-Type` parameters alone (JSON:API 1.1
 * "Content Negotiation", server responsibilities): a parameter other than `ext` and `profile` (here
 * also `version`, the versioning primitive's, and `charset`, which restates UTF-8), or an `ext`
 * naming an extension this server does not support. Read by body decoding (`decodeBody`) and by the
 * framework adapters' `conventions(...)`, which hand a body on to the framework's own parser.
 */
import { mediaTypeParameters } from '../core/media-type-parameters.js';
import type { ApiError } from '../errors/api-error.js';
import { echo } from '../errors/echo.js';
import { JSON_API_PARAMETERS, unsupportedExtension } from '../http/jsonapi-parameters.js';
import { JSON_API } from '../http/media-types.js';
import { unsupportedBodyError } from './body-errors.js';

/** JSON:API 1.1's `ext` and `profile`, the versioning primitive's `version`, and `charset` (UTF-8 only). */
const ALLOWED_JSON_API_PARAMS = new Set([...JSON_API_PARAMETERS, 'charset']);

/**
 * The 415 for a JSON:API `Content-Type` (its essence already known to be `application/vnd.api+json`)
 * whose parameters this server refuses, or `undefined` when it takes them. Malformed parameters and a
 * charset other than UTF-8 are left to the caller, which reads the body.
 */
export function refusedJsonApiContent(contentType: string): ApiError | undefined {
  const params = mediaTypeParameters(contentType);
  if (params === undefined) return undefined;
  const unsupported = [...params.keys()].find((name) => !ALLOWED_JSON_API_PARAMS.has(name));
  if (unsupported !== undefined) {
    return unsupportedBodyError(`${JSON_API} does not take the media type parameter "${echo(unsupported)}".`);
  }
  const extension = unsupportedExtension(params.get('ext'));
  if (extension === undefined) return undefined;
  return unsupportedBodyError(
    `The JSON:API extension "${echo(extension)}" is not supported here (JSON:API 1.1 "Content Negotiation").`,
    true,
  );
}
