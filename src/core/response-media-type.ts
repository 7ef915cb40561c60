import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { contextKey } from '../http/types.js';

/** The response media type chosen for this request (set once a route matched; RFC 9110 section 12.5.1). */
export const RESPONSE_MEDIA_TYPE = contextKey<string>('response media type');

/**
 * 406: no response media type is acceptable (RFC 9110 section 15.5.7); `detail` says why. The one
 * builder of a declared route's 406 and of the JSON:API negotiation behind `conventions(...)`.
 */
export function notAcceptableError(detail: string): ApiError {
  return codedError(406, 'not-acceptable', { detail, source: { header: 'Accept' } });
}
