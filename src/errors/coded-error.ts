import { ApiError, type ApiErrorOptions, type ErrorDetail } from './api-error.js';
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

/** One problem of a {@link codedErrors} error, under a code of the catalogue. */
export interface CodedErrorDetail extends ErrorDetail {
  readonly code: ErrorCode;
}

/** What a several-problem error takes besides its problems: {@link CodedErrorOptions} less what each problem states. */
export type CodedErrorsOptions = Omit<CodedErrorOptions, 'title' | 'detail' | 'source'>;

/**
 * An {@link ApiError} listing several problems (one per invalid field or parameter), each under a
 * code of the catalogue, typed as its union like {@link codedError}'s. A problem document of it
 * carries the code `multiple-errors` (docs/errors.md).
 *
 * @example throw codedErrors(400, [{ code: 'missing-field', detail: '"title" is required.', source: { pointer: '/title' } }])
 */
export function codedErrors(
  status: number,
  errors: readonly CodedErrorDetail[],
  options: CodedErrorsOptions = {},
): ApiError {
  return new ApiError(status, { ...options, errors });
}
