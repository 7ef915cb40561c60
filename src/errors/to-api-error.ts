import createHttpError from 'http-errors';
import { ApiError, isApiError } from './api-error.js';

/**
 * Turn anything thrown into an {@link ApiError}. Errors from `http-errors` (and libraries built on it)
 * keep their status; their message is shown only when they are marked `expose` (4xx). Anything else
 * becomes a generic 500 whose message is never sent.
 */
export function toApiError(thrown: unknown): ApiError {
  if (isApiError(thrown)) return thrown;
  if (createHttpError.isHttpError(thrown) && thrown.status >= 400 && thrown.status <= 599) {
    const exposed = thrown.expose && thrown.status < 500;
    return new ApiError(thrown.status, {
      ...(exposed ? { detail: thrown.message } : {}),
      cause: thrown,
    });
  }
  return new ApiError(500, { cause: thrown });
}
