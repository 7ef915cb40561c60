import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import { appendListHeader } from '../http/header-copy.js';
import type { ApiResponse, Context, Middleware } from '../http/types.js';
import { type CorsRequest, corsDecision } from './decision.js';
import { type CorsOptions, corsPolicy } from './policy.js';

/**
 * What `before` hands on for a request without `Origin` (no script on another origin made it): one
 * shared value, so the common case allocates nothing.
 */
const NO_ORIGIN: CorsRequest = Object.freeze({ method: '', origin: undefined, requestMethod: undefined });

/** `Origin` among the members of a `Vary` value (RFC 9110 section 12.5.5), case-insensitively. */
const VARIES_ON_ORIGIN = /(?:^|,)[ \t]*origin[ \t]*(?:,|$)/i;

/** Headers of an answer to a preflight that no longer has a body. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'etag', 'last-modified'];

/**
 * CORS for browsers on other origins (Fetch standard, section 3.2): an allow-list of origins, the
 * conventions' response headers exposed (`ETag`, `Location`, `RateLimit`, ... {@link CORS_EXPOSED_HEADERS})
 * and request headers allowed (`If-Match`, `Idempotency-Key`, ... {@link CORS_ALLOWED_HEADERS}),
 * `Vary: Origin`, on every answer that passes through it: errors, `304`, `412` and `429` included.
 * A preflight goes on to the route table, which answers `OPTIONS` with the path's `Allow`; this layer
 * turns that answer into the preflight's (`204`, `Access-Control-Allow-Methods` from `Allow`). Put it
 * right after `securityHeaders()`, before every layer that may answer (a `429` from a limiter outside
 * it would reach the browser unreadable). The rate limiter does not count preflights.
 *
 * @example createApp({ use: [securityHeaders(), cors({ origins: ['https://app.example.com'] }), rateLimit({ policies })] })
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
export function cors(options: CorsOptions): Middleware {
  const policy = corsPolicy(options);
  const layer = defineMiddleware<Context, CorsRequest>({
    before: function readCorsRequest(ctx) {
      const { headers, method } = ctx.request;
      const origin = headers.get('origin');
      if (origin === undefined) return NO_ORIGIN;
      return {
        method,
        origin,
        requestMethod: method === 'OPTIONS' ? headers.get('access-control-request-method') : undefined,
      };
    },
    after: function addCorsHeaders(_ctx, response, request) {
      if (request === undefined) return response;
      // corsDecision's no-origin answer, added in place: most requests (same origin, not a browser)
      // carry no `Origin`, and should pay next to nothing for CORS.
      if (request.origin === undefined) {
        if (policy.anyOrigin) response.headers['access-control-allow-origin'] = '*';
        else varyOnOrigin(response.headers);
        return response;
      }
      const decision = corsDecision(
        request,
        { status: response.status, allow: response.headers.allow },
        policy,
      );
      const answer = decision.kind === 'preflight' ? preflightAnswer(response) : response;
      for (const [name, value] of Object.entries(decision.headers)) {
        if (name === 'vary') appendListHeader(answer.headers, 'vary', value.split(', '));
        else answer.headers[name] = value;
      }
      return answer;
    },
  });
  const exposed = { description: 'The response headers a script on an allowed origin may read.' };
  return describeLayer(layer, {
    allHeaders: {
      'Access-Control-Allow-Origin': {
        description: policy.anyOrigin
          ? 'Always `*`: a script on any origin may read this response (Fetch standard, CORS protocol).'
          : "The request's `Origin` when that origin is allowed to read this response (Fetch standard, CORS protocol); absent otherwise.",
        ...(policy.anyOrigin ? { required: true } : {}),
      },
      'Access-Control-Expose-Headers': exposed,
      ...(policy.credentials
        ? { 'Access-Control-Allow-Credentials': { description: 'Always `true` with an allowed origin.' } }
        : {}),
      ...(policy.anyOrigin
        ? {}
        : {
            Vary: {
              description: 'The request fields this answer depends on: `Origin` at least.',
              required: true,
            },
          }),
    },
  });
}

/** `Vary` with `Origin` among its members, as `appendListHeader` would add it, without splitting it. */
function varyOnOrigin(headers: Record<string, string>): void {
  const current = headers.vary;
  if (current === undefined || current === '') headers.vary = 'Origin';
  else if (current.trim() !== '*' && !VARIES_ON_ORIGIN.test(current)) headers.vary = `${current}, Origin`;
}

/** The route table's answer to a preflight, as one: `204` with its headers and no body. */
function preflightAnswer(response: ApiResponse): ApiResponse {
  const headers = { ...response.headers };
  for (const name of BODY_HEADERS) delete headers[name];
  return { status: 204, headers };
}
