export {
  ApiError,
  type ApiErrorOptions,
  type ErrorDetail,
  type ErrorSource,
  isApiError,
  statusCode,
  statusPhrase,
} from './api-error.js';
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
