import { appendListHeader, copyWith, VARY_ACCEPT } from '../http/header-copy.js';
import { negotiateErrorType, PROBLEM_JSON } from '../http/media-types.js';
import type { ApiResponse, Context } from '../http/types.js';
import type { ApiError } from './api-error.js';
import { clientErrorLog } from './client-error-log.js';
import type { DeclinedLoadCode } from './codes.js';
import { errorDocument, problemDocument } from './error-document.js';
import { toApiError } from './to-api-error.js';

const logClientError = clientErrorLog();

/**
 * The response for anything thrown: an error document, or an RFC 9457 problem document when the
 * client prefers `application/problem+json`. Server errors are logged with the request id and their
 * cause; the client sees only the status phrase. A 501 (a request the server does not implement,
 * RFC 9110 section 15.6.2, such as an unknown transfer coding) is the client's doing, and a 503
 * `database-unavailable` is load declined for a moment (no database connection free in time, RFC
 * 9110 section 15.6.4), not a fault: each a warning without a stack, at most
 * `CLIENT_ERROR_LOGS_PER_SECOND` a second. Other client errors are not logged. Error responses are
 * never stored by caches (`Cache-Control: no-store`), and say `Vary: Accept`: their format is chosen
 * from it (RFC 9110 section 12.5.5; JSON:API 1.1 "Content Negotiation" asks it of every response).
 */
export function renderError(thrown: unknown, ctx: Context): ApiResponse {
  const error = toApiError(thrown);
  if (error.status === 501 || isDeclinedLoad(error)) {
    try {
      logClientError(ctx.logger, {
        requestId: ctx.requestId,
        method: ctx.request.method,
        route: ctx.routePattern,
        status: error.status,
        code: error.errors[0]?.code,
      });
    } catch {
      // A failing logger must not turn one error response into none.
    }
  } else if (error.status >= 500) {
    try {
      ctx.logger.error(
        {
          requestId: ctx.requestId,
          method: ctx.request.method,
          route: ctx.routePattern,
          status: error.status,
          err: error.cause ?? error,
        },
        'request failed',
      );
    } catch {
      // A failing logger must not turn one error response into none.
    }
  }
  const type = negotiateErrorType(ctx.request.headers.get('accept'));
  // Copied without a spread, as `created()` does: later layers add fields to this object.
  const headers = copyWith(error.headers, 'content-type', type);
  headers['cache-control'] = 'no-store';
  appendListHeader(headers, 'vary', VARY_ACCEPT);
  return {
    status: error.status,
    headers,
    json: type === PROBLEM_JSON ? problemDocument(error) : errorDocument(error),
  };
}

/**
 * The catalogue's codes marked `declinesLoad` (`ERROR_CODES`), each once: a record keyed by their
 * union, so one the catalogue gains or loses fails to compile here (the catalogue's data stays out of
 * the bundle). The rate limiter's 503s are not among them: it logs its store's outage once itself.
 */
export const DECLINED_LOAD: Readonly<Record<DeclinedLoadCode, true>> = { 'database-unavailable': true };

/** A 503 that asks the client to come back (`Retry-After`) and has no failure behind it. */
function isDeclinedLoad(error: ApiError): boolean {
  const code = error.errors[0]?.code;
  return (
    error.status === 503 &&
    error.cause === undefined &&
    code !== undefined &&
    Object.hasOwn(DECLINED_LOAD, code)
  );
}
