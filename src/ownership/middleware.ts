import { unauthenticatedError } from '../auth/errors.js';
import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import { whenSettled } from '../core/maybe-promise.js';
import { realmOption } from '../errors/option-checks.js';
import type { Context, Inputs, Middleware } from '../http/types.js';
import { decideOwnership, type OwnershipResult } from './check.js';
import { forbiddenError, noSuchRecordError } from './errors.js';
import type { OwnedPath, ParamsFor } from './owned-path.js';

export interface OwnershipGuardOptions<
  Records extends readonly unknown[],
  Names extends string,
  Vars extends object = {},
  Ps extends object = ParamsFor<Names>,
> {
  /** The nested path to protect, built with `ownedPath(...).child(...)`. */
  readonly path: OwnedPath<Records, Names, Vars, Ps>;
  /** The `realm` of the 401 challenge (RFC 6750 section 3). Default `api`, as `authenticate` uses. */
  readonly realm?: string;
}

/**
 * Route middleware enforcing the ownership rule for a nested path (see docs/ownership.md; OWASP API1:2023),
 * in this order: no principal → 401 with `WWW-Authenticate: Bearer realm=...` (the same answer as
 * `requireAuth`); no right to the parent → 403; the parent absent → 404; each child absent OR
 * belonging to another parent → the same 404 (identical status, headers and body shape, so a caller
 * never learns that an id exists elsewhere). On success each level's record is added to `ctx.var`
 * under its noun (`ctx.var.user`, `ctx.var.order`), typed, so the handler does not load again.
 *
 * Its type requires the route to have every parameter of the path, so a guard on the wrong route
 * does not compile.
 *
 * @example
 * app.route({ method: 'GET', path: '/users/{id}/orders/{order_id}', use: [ownershipGuard({ path: userOrder })],
 *   handler: (ctx) => json(200, { data: ... ctx.var.order ... }) });
 * @see https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/
 */
export function ownershipGuard<
  Records extends readonly unknown[],
  Names extends string,
  Vars extends object,
  Ps extends object,
>(options: OwnershipGuardOptions<Records, Names, Vars, Ps>): Middleware<Context<Ps & Inputs>, Vars> {
  const { path } = options;
  if (path === undefined || !Array.isArray(path.levels) || path.levels.length === 0) {
    throw new TypeError('ownershipGuard: path must be built with ownedPath(...)');
  }
  const realm = realmOption('ownershipGuard', options.realm);
  // The 401 is requireAuth's own, so every protected route answers it identically.
  const { levels } = path;
  const settle = (ctx: Context<Ps & Inputs>, result: OwnershipResult<Records>): undefined => {
    switch (result.outcome) {
      case 'unauthenticated':
        throw unauthenticatedError(realm);
      case 'forbidden':
        throw forbiddenError(levels[0]!.noun);
      case 'not-found':
        // A function of (noun, id) only: "absent" and "someone else's" cannot differ.
        throw noSuchRecordError(result.noun, result.id);
      case 'allow':
        for (let index = 0; index < levels.length; index++) {
          const level = levels[index]!;
          ctx.var[level.noun] = result.records[index];
        }
        return undefined;
    }
  };
  // A hook, not a frame around the rest: the pipeline waits only while a loader does.
  const layer = defineMiddleware<Context<Ps & Inputs>>({
    before: function ownershipGuardMiddleware(ctx) {
      const result = decideOwnership(path, ctx.var.principal, ctx.params);
      return whenSettled(result, (settled) => settle(ctx, settled));
    },
  });
  // Unauthenticated: 401; another's or a missing record: the same 404; a reader without the scope: 403.
  return describeLayer(layer, {
    security: { scopes: [] },
    responses: {
      401: {
        description: 'Unauthorized: no valid bearer token.',
        headers: {
          'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750 section 3).', required: true },
        },
      },
      403: { description: 'Forbidden: the caller may not read this resource.' },
      404: { description: 'Not Found: no such resource, or one the caller does not own (the same answer).' },
    },
  });
}
