/**
 * JSON:API 1.1 "Content Negotiation" (server responsibilities) for what a framework's own routes
 * answer behind `conventions(...)`, as `createApp` negotiates it for its declared routes: a request
 * with content whose JSON:API `Content-Type` names an unsupported `ext` (or a parameter other than
 * `ext` and `profile`) is 415 before the framework reads the body; an `Accept` whose every JSON:API
 * instance names an unsupported extension cannot be answered with JSON:API (406); an unknown
 * `profile` is ignored. The answers say `Vary: Accept`, which the 1.1 text asks of a server reading
 * these parameters.
 *
 * A framework route chooses its own format, so the 406 is decided from what it sends: a write is
 * refused before it runs only when `Accept` names nothing but refused JSON:API (no format could be
 * acceptable); a read's successful JSON:API representation is replaced by the 406, its errors kept,
 * as `createApp` keeps a route's errors (see `docs/adapters.md`).
 */
import { notAcceptableError } from '../core/response-media-type.js';
import type { ApiError } from '../errors/api-error.js';
import { renderError } from '../errors/render.js';
import { parseAccept } from '../http/accept.js';
import { appendListHeader, VARY_ACCEPT } from '../http/header-copy.js';
import { acceptsOnlyRefusedJsonApi, refusesJsonApi } from '../http/jsonapi-parameters.js';
import { essence, JSON_API } from '../http/media-types.js';
import { isSafeMethod } from '../http/methods.js';
import type { ApiResponse, Context, HeaderBag } from '../http/types.js';
import { refusedJsonApiContent } from '../validation/jsonapi-content-type.js';

const JSON_API_NAMED = /vnd\.api\+json/i;

function notAcceptable(): ApiError {
  return notAcceptableError(
    `Accept asks for ${JSON_API} only with extensions this server does not support (JSON:API 1.1 "Content Negotiation").`,
  );
}

/**
 * Whether the request carries content (RFC 9112 section 6.3: framed by `Transfer-Encoding` or a
 * non-zero `Content-Length`): a `Content-Type` on a request without any, such as a GET, describes
 * nothing the framework will parse, and is left alone, as `createApp` leaves it on a route without a body.
 */
function carriesContent(headers: HeaderBag): boolean {
  const length = headers.get('content-length');
  return headers.get('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
}

function varied(response: ApiResponse): ApiResponse {
  appendListHeader(response.headers, 'vary', VARY_ACCEPT);
  return response;
}

/**
 * Runs `downstream` (the framework's own handling) under JSON:API 1.1 negotiation: the 415 or the 406
 * a request earns instead of it, or the 406 in place of a read's JSON:API representation.
 */
export function negotiatedJsonApi(
  ctx: Context,
  downstream: (ctx: Context) => Promise<ApiResponse>,
): ApiResponse | Promise<ApiResponse> {
  const { headers, method } = ctx.request;
  const contentType = headers.get('content-type');
  if (contentType !== undefined && carriesContent(headers) && essence(contentType) === JSON_API) {
    const refused = refusedJsonApiContent(contentType);
    if (refused !== undefined) return varied(renderError(refused, ctx));
  }
  const accept = headers.get('accept');
  const ranges = accept !== undefined && JSON_API_NAMED.test(accept) ? parseAccept(accept) : undefined;
  if (ranges === undefined || !refusesJsonApi(ranges)) return downstream(ctx).then(varied);
  const nothingAcceptable = acceptsOnlyRefusedJsonApi(ranges);
  // A write the framework ran cannot be taken back, so it is refused only before it runs.
  if (!isSafeMethod(method)) {
    return nothingAcceptable ? varied(renderError(notAcceptable(), ctx)) : downstream(ctx).then(varied);
  }
  return downstream(ctx).then((response) => {
    const type = response.headers['content-type'];
    const refused =
      response.status < 300 &&
      (response.json !== undefined || response.raw !== undefined) &&
      type !== undefined &&
      (nothingAcceptable || essence(type) === JSON_API);
    return varied(refused ? renderError(notAcceptable(), ctx) : response);
  });
}
