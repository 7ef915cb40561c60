import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import type { HeaderBag } from '../http/types.js';
import { misplacedWildcard } from './entity-tag.js';
import type { PreconditionHeaders } from './preconditions.js';

// What `conditional` reads from the request: its precondition fields.

export function preconditionHeaders(headers: HeaderBag): PreconditionHeaders {
  const ifMatch = headers.get('if-match');
  const ifNoneMatch = headers.get('if-none-match');
  if (ifMatch !== undefined && misplacedWildcard(ifMatch)) throw wildcardNotAloneError('If-Match');
  if (ifNoneMatch !== undefined && misplacedWildcard(ifNoneMatch))
    throw wildcardNotAloneError('If-None-Match');
  return {
    ifMatch,
    ifNoneMatch,
    ifModifiedSince: headers.get('if-modified-since'),
    ifUnmodifiedSince: headers.get('if-unmodified-since'),
  };
}

/** 400 for `*` listed with other members: it must be the whole value (RFC 9110 sections 13.1.1-2). */
function wildcardNotAloneError(field: 'If-Match' | 'If-None-Match'): ApiError {
  return codedError(400, 'invalid-header', {
    detail: `${field} is either * alone or a list of entity tags, not both (RFC 9110 section 13.1).`,
    source: { header: field },
  });
}

/** If-Match is present, or a PUT says "create only if absent" (`If-None-Match: *`, RFC 9110 13.1.2). */
export function hasIfMatch(headers: PreconditionHeaders, method: string): boolean {
  if (headers.ifMatch !== undefined && headers.ifMatch.trim() !== '') return true;
  return method === 'PUT' && headers.ifNoneMatch?.trim() === '*';
}
