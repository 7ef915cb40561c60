import { describeLayer } from '../core/contract.js';
import { appendListMember } from '../core/response.js';
import { codedError } from '../errors/coded-error.js';
import { functionOption } from '../errors/option-checks.js';
import type { Middleware } from '../http/types.js';
import { type DeprecationOptions, deprecationNotice } from './notice.js';

/**
 * Deprecation and sunset signalling: the route (or one API version of it) answers normally, plus
 * - `Deprecation: @<unix-seconds>` (RFC 9745),
 * - `Sunset: <IMF-fixdate>` when a sunset is set (RFC 8594),
 * - `Link: <docs>; rel="deprecation"; type="text/html"` and `<successor>; rel="successor-version"`,
 *   added to any `Link` the response already has.
 *
 * From the sunset on, with `goneAfterSunset`, it answers 410 Gone (with the same headers) without
 * running the handler. Options are checked when the middleware is built.
 *
 * @example
 * deprecation({ since: '2025-01-01', sunset: '2026-06-30', link: 'https://example.com/docs/v1',
 *   successor: '/v2/users/{id}', version: 1 })
 * @see https://www.rfc-editor.org/rfc/rfc9745
 * @see https://www.rfc-editor.org/rfc/rfc8594
 */
export function deprecation(options: DeprecationOptions): Middleware {
  const notice = deprecationNotice(options);
  const now = functionOption(
    'deprecation',
    'now',
    options.now ?? Date.now,
    'a function returning epoch milliseconds',
  );

  const headers: Readonly<Record<string, string>> =
    notice.sunset === undefined
      ? { deprecation: notice.deprecation }
      : { deprecation: notice.deprecation, sunset: notice.sunset };
  const retired = notice.version === undefined ? 'This resource' : `API version ${notice.version}`;

  const layer: Middleware = async function announceDeprecation(ctx, next) {
    if (notice.version !== undefined) {
      const version = ctx.var.apiVersion;
      if (version === undefined) {
        throw new Error('deprecation({ version }) needs the API version: run versioning() before it');
      }
      if (version !== notice.version) return next();
    }
    const link = notice.linkFor(ctx.params);

    if (notice.goneAfterSunset && notice.sunsetAt !== undefined && now() >= notice.sunsetAt) {
      const successor = notice.successorFor(ctx.params);
      const instead = successor === undefined ? '' : `; use ${successor}`;
      throw codedError(410, 'sunset', {
        detail: `${retired} was retired on ${notice.sunset}${instead}.`,
        headers: link === undefined ? headers : { ...headers, link },
      });
    }

    const response = await next();
    Object.assign(response.headers, headers);
    if (link !== undefined) appendListMember(response.headers, 'link', link);
    return response;
  };
  return describeLayer(layer, {
    deprecation: {
      ...(notice.version === undefined ? {} : { version: notice.version }),
      ...(notice.sunset === undefined ? {} : { sunset: notice.sunset }),
      ...(options.successor === undefined ? {} : { successor: options.successor }),
    },
  });
}
