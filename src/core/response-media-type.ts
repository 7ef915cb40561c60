import { contextKey } from '../http/types.js';

/** The response media type chosen for this request (set once a route matched; RFC 9110 section 12.5.1). */
export const RESPONSE_MEDIA_TYPE = contextKey<string>('response media type');
