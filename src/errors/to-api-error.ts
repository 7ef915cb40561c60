import { HTTP_TOKEN } from '../http/field-syntax.js';
import { ApiError, isApiError } from './api-error.js';

const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The `headers` an http-errors error asks to send (`Allow`, `WWW-Authenticate`, ...), if well-formed. */
function headersOf(thrown: { headers?: Record<string, unknown> }): Record<string, string> | undefined {
  const { headers } = thrown;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && HTTP_TOKEN.test(name) && FIELD_VALUE.test(value)) {
      kept[name.toLowerCase()] = value;
    }
  }
  return kept;
}

/** The shape of an `http-errors` error, as its `isHttpError` tells one (without loading it). */
interface HttpErrorLike extends Error {
  readonly status: number;
  readonly statusCode: number;
  readonly expose: boolean;
  readonly headers?: Record<string, unknown>;
}

function isHttpError(thrown: unknown): thrown is HttpErrorLike {
  if (!(thrown instanceof Error)) return false;
  const { expose, status, statusCode } = thrown as Partial<HttpErrorLike>;
  return typeof expose === 'boolean' && typeof statusCode === 'number' && status === statusCode;
}

/**
 * Turn anything thrown into an {@link ApiError}. Errors from `http-errors` (and libraries built on it)
 * keep their status and `headers`; their message is shown only when they are marked `expose` (4xx).
 * Anything else becomes a generic 500 whose message is never sent.
 */
export function toApiError(thrown: unknown): ApiError {
  if (isApiError(thrown)) return thrown;
  if (isHttpError(thrown) && thrown.status >= 400 && thrown.status <= 599) {
    const exposed = thrown.expose && thrown.status < 500;
    const headers = headersOf(thrown);
    return new ApiError(thrown.status, {
      ...(exposed ? { detail: thrown.message } : {}),
      ...(headers ? { headers } : {}),
      cause: thrown,
    });
  }
  return new ApiError(500, { cause: thrown });
}
