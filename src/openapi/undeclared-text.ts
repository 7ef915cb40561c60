import type { JsonSchema } from './types.js';

/**
 * The longest request head node's HTTP parser takes by default (`maxHeaderSize`, 16 KiB; a longer one
 * is answered 431, docs/security.md): no path segment or header field value can be longer. It bounds a
 * path parameter or request header that declares no schema of its own, as tools checking for
 * unbounded input ask (OWASP API4:2023).
 */
const REQUEST_HEAD_MAX_LENGTH = 16_384;
export const UNDECLARED_TEXT: JsonSchema = { type: 'string', maxLength: REQUEST_HEAD_MAX_LENGTH };
