import { defineMiddleware } from '../core/compose.js';
import { afterPending, type Pending, settleOrCollect, whenSettled } from '../core/maybe-promise.js';
import type { ListedCodecs } from '../core/route-schemas.js';
import { notFoundError } from '../core/unmatched.js';
import type { Middleware } from '../http/types.js';
import { decodeQueryInput } from '../validation/decode-query.js';
import { validateSchema } from '../validation/standard-schema.js';

/**
 * Decodes path parameters and query before the route's middleware, so a bad one is refused first,
 * into `ctx.params` and `ctx.query`: from here on the route's layers and its handler read the same
 * decoded values, in the one place, and nothing decodes them again.
 */
export function decodeInput(params: ListedCodecs, query: ListedCodecs | undefined): Middleware {
  const names = Object.keys(params);
  return defineMiddleware({
    // Synchronous unless a Standard Schema validator answers with a promise: then awaited, in order.
    before: function decodeRouteInput(ctx): undefined | Promise<undefined> {
      let pending: Pending;
      if (names.length > 0) {
        const decoded: Record<string, unknown> = { ...ctx.params };
        for (const name of names) {
          pending = settleOrCollect(pending, validateSchema(params[name]!, ctx.params[name]), (result) => {
            if (result._tag === 'Left') throw notFoundError();
            decoded[name] = result.right;
          });
        }
        ctx.params = decoded;
      }
      const decodeQuery = (): undefined | Promise<undefined> => {
        if (query === undefined) return undefined;
        return whenSettled(decodeQueryInput(ctx, query), (decoded) => {
          ctx.query = decoded;
          return undefined;
        });
      };
      // A path parameter refused (404) answers before the query is looked at.
      return afterPending(pending, decodeQuery);
    },
  });
}
