import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import type { Middleware } from '../http/types.js';
import { resolveSecurityHeaders, type SecurityHeadersOptions, SOFTWARE_HEADERS } from './headers.js';

/**
 * Adds the security headers to every response that passes through it — errors, 304s and redirects
 * included, since the pipeline turns errors into responses before they reach an outer layer. Put it
 * first in `createApp({ use })`. A header a handler set explicitly is kept.
 *
 * @example createApp({ use: [securityHeaders({ 'strict-transport-security': false })] })
 * @see https://owasp.org/www-project-secure-headers/
 */
export function securityHeaders(options: SecurityHeadersOptions = {}): Middleware {
  const entries = resolveSecurityHeaders(options);
  // Flat arrays: the per-response loop reads two indexes instead of destructuring a pair.
  const names = entries.map(([name]) => name);
  const values = entries.map(([, value]) => value);
  const count = names.length;
  const described = Object.fromEntries(
    entries.map(([name, value]) => [name, { description: `Always ${value}.`, required: true }]),
  );
  const layer = defineMiddleware({
    after: function addSecurityHeaders(_ctx, response) {
      const { headers } = response;
      for (let i = 0; i < count; i++) headers[names[i]!] ??= values[i]!;
      // `delete` turns the object into a slow dictionary: only pay for it when there is something to
      // drop. The two SOFTWARE_HEADERS are checked by name, which costs less than a keyed lookup each.
      if (headers.server !== undefined || headers['x-powered-by'] !== undefined) {
        for (const name of SOFTWARE_HEADERS) delete headers[name];
      }
      return response;
    },
  });
  // Every response carries them: the layer runs first and decorates errors too.
  return describeLayer(layer, { allHeaders: described });
}
