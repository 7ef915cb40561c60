import type { ApiError } from '../errors/api-error.js';
import { type CodedErrorDetail, codedErrors } from '../errors/coded-error.js';
import { integerInRange } from '../errors/option-checks.js';
import { MAX_UNKNOWN_FIELD_FAILURES } from './failure-messages.js';

/**
 * How many problems one 400 lists by default (`decodeJsonBody`, `decodeQuery`); the rest are counted
 * in the document's `meta.omittedErrors`. A body of 11 000 unknown fields thus answers about 5 KB,
 * not 1.5 MB.
 */
export const MAX_ERRORS = 20;

/** The largest `maxErrors` accepted (a strict object stops itemizing unknown fields there). */
export const MAX_ERRORS_LIMIT = MAX_UNKNOWN_FIELD_FAILURES;

/** `maxErrors` checked: an integer from 1 to {@link MAX_ERRORS_LIMIT}, else a `TypeError` naming it. */
export function checkMaxErrors(maxErrors: unknown, where: string): number {
  return integerInRange(where, 'maxErrors', maxErrors as number | undefined, MAX_ERRORS, 1, MAX_ERRORS_LIMIT);
}

/**
 * Problems of one request, kept up to `max`; past it they are only counted (a detail is built only
 * when it is kept).
 */
export class ErrorList {
  readonly details: CodedErrorDetail[] = [];
  omitted = 0;

  constructor(readonly max: number) {}

  /** Whether another problem would only be counted. */
  get full(): boolean {
    return this.details.length >= this.max;
  }

  add(detail: CodedErrorDetail | (() => CodedErrorDetail)): void {
    if (this.full) this.omitted++;
    else this.details.push(typeof detail === 'function' ? detail() : detail);
  }

  get empty(): boolean {
    return this.details.length === 0;
  }

  /** The 400 listing the kept problems, with `meta.omittedErrors` when some were left out. */
  toBadRequest(): ApiError {
    return codedErrors(400, this.details, this.omitted > 0 ? { meta: { omittedErrors: this.omitted } } : {});
  }
}
