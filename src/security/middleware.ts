import type { Middleware } from '../core/types.js';
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
  return async function securityHeadersMiddleware(_ctx, next) {
    const response = await next();
    const { headers } = response;
    for (let i = 0; i < count; i++) headers[names[i]!] ??= values[i]!;
    // `delete` turns the object into a slow dictionary; only pay for it when there is something to drop.
    for (const name of SOFTWARE_HEADERS) if (headers[name] !== undefined) delete headers[name];
    return response;
  };
}
