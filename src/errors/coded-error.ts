import { ApiError, type ApiErrorOptions } from './api-error.js';
import type { ErrorCode } from './codes.js';

/** What a coded error takes besides its status and code: {@link ApiErrorOptions}, less `code` and `errors`. */
export type CodedErrorOptions = Omit<ApiErrorOptions, 'code' | 'errors'>;

/**
 * An {@link ApiError} under a code of the library's catalogue (`ERROR_CODES`, docs/errors.md), typed
 * as its union, so a code the catalogue does not list does not compile. Each convention's errors are
 * built with it, in that convention's own factories. The status is written beside the code (the
 * catalogue's data stays out of a bundle that does not list it); test/errors/codes.test.ts checks each
 * pair against the catalogue.
 *
 * @example throw codedError(404, 'not-found', { detail: 'No book with id 7.' })
 */
export function codedError(status: number, code: ErrorCode, options: CodedErrorOptions = {}): ApiError {
  return new ApiError(status, { ...options, code });
}
