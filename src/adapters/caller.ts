/**
 * The typed caller of the framework adapters' `requireCaller(...)`: one decision for every framework,
 * the 401 the core `requireAuth()` answers (`unauthenticated`, RFC 6750 section 3.1), so a route of
 * Express, Fastify, Koa or Hono refuses an anonymous request exactly as a declared route does.
 */

import { unauthenticatedError } from '../auth/errors.js';
import { realmOption } from '../errors/option-checks.js';
import type { Context, Principal } from '../http/types.js';

/** Options of every framework's `requireCaller`. */
export interface RequireCallerOptions {
  /** The `realm` of the `WWW-Authenticate` challenge (RFC 6750 section 3). Default `api`. */
  readonly realm?: string;
}

/**
 * Checks the options at start-up and gives the check run per request: the principal of the request's
 * context, or the 401 `requireAuth()` throws. A request outside `conventions(...)` has no context: a
 * programming error (500), not the client's.
 */
export function callerCheck(
  options: RequireCallerOptions | undefined,
  framework: string,
): (ctx: Context | undefined) => Principal {
  const realm = realmOption(`${framework} requireCaller`, options?.realm);
  return function callerOf(ctx) {
    if (ctx === undefined) {
      throw new Error(
        `${framework} requireCaller: the route runs outside conventions(...); register conventions first`,
      );
    }
    const { principal } = ctx.var;
    if (principal === undefined) throw unauthenticatedError(realm);
    return principal;
  };
}
