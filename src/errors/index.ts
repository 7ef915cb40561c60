export {
  ApiError,
  type ApiErrorOptions,
  type ErrorDetail,
  type ErrorSource,
  isApiError,
  type ProblemType,
  statusCode,
  statusPhrase,
} from './api-error.js';
export {
  type AdaptersErrorCode,
  type AuthErrorCode,
  type CachingErrorCode,
  type CoreErrorCode,
  type DeprecationErrorCode,
  type EnvelopeErrorCode,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeEntry,
  type ErrorCodeOf,
  type ErrorModule,
  type IdempotencyErrorCode,
  isErrorCode,
  type OwnErrorCode,
  type OwnershipErrorCode,
  type RateLimitErrorCode,
  type ValidationErrorCode,
  type VersioningErrorCode,
} from './codes.js';
export {
  type ErrorDocument,
  type ErrorObject,
  errorDocument,
  errorObjects,
  type ProblemDocument,
  problemDocument,
} from './error-document.js';
export { renderError } from './render.js';
export { toApiError } from './to-api-error.js';
