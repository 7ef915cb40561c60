import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import type { PreconditionField } from './preconditions.js';

/**
 * 412 Precondition Failed (RFC 9110 section 15.5.13): the resource changed since the client read it,
 * and nothing was done. Throw it from a handler whose conditional write lost a race.
 * @example throw preconditionFailedError('If-Match')
 */
export function preconditionFailedError(field: PreconditionField = 'If-Match'): ApiError {
  return codedError(412, 'precondition-failed', {
    detail:
      field === 'If-None-Match'
        ? 'The resource already exists or matches a listed entity tag; nothing was changed.'
        : 'The resource has changed since you read it; nothing was changed. Read it again and retry.',
    source: { header: field },
  });
}

/**
 * 428 Precondition Required (RFC 6585 section 3): this write must be conditional, so that it cannot
 * silently overwrite someone else's change.
 * @example throw preconditionRequiredError()
 */
export function preconditionRequiredError(): ApiError {
  return codedError(428, 'precondition-required', {
    detail: 'This request must be conditional: send If-Match with the ETag you last read.',
    source: { header: 'If-Match' },
  });
}
