import type { Context, Middleware, MiddlewareHooks } from 'rest-conventions';
import { contractOf, defineMiddleware, describeLayer, type OperationContract } from 'rest-conventions/core';
import { HEALTH_PATHS } from './health-routes.js';

/**
 * `middleware` for every request but the health probes (`HEALTH_PATHS`), which skip it. Its contract
 * goes with it, except on the probes (`exceptPaths`): their description promises none of its headers
 * or statuses. Elsewhere its headers are declared but not required: the framework examples, which
 * answer some errors before their limiter runs, are checked against the same description.
 * A middleware made of hooks (`defineMiddleware`, as `rateLimit` is) stays hooks, so the pipeline
 * still runs it in place rather than as an async frame around the rest of every request.
 */
export function exceptHealth(middleware: Middleware): Middleware {
  const { hooks } = middleware as { readonly hooks?: MiddlewareHooks<Context, unknown> };
  const skipping: Middleware =
    hooks === undefined
      ? function exceptHealthProbes(ctx, next) {
          return HEALTH_PATHS.has(ctx.request.path) ? next() : middleware(ctx, next);
        }
      : exceptHealthHooks(hooks);
  return describeLayer(
    skipping,
    ...contractOf(middleware).map((contract) => ({
      ...notPromised(contract),
      exceptPaths: [...HEALTH_PATHS],
    })),
  );
}

/** The same hooks, not called on a health probe (whose path is looked up again on the way out). */
function exceptHealthHooks(hooks: MiddlewareHooks<Context, unknown>): Middleware {
  const { before, after } = hooks;
  const probe = (ctx: Context) => HEALTH_PATHS.has(ctx.request.path);
  return defineMiddleware<Context, unknown>({
    ...(before === undefined
      ? {}
      : {
          before: function exceptHealthProbes(ctx) {
            return probe(ctx) ? undefined : before(ctx);
          },
        }),
    ...(after === undefined
      ? {}
      : {
          after: function exceptHealthProbesAfter(ctx, response, state) {
            return probe(ctx) ? response : after(ctx, response, state);
          },
        }),
  });
}

function notPromised(contract: OperationContract): OperationContract {
  const loosen = (headers: OperationContract['allHeaders']) =>
    headers &&
    Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { ...h, required: false }]));
  return {
    ...contract,
    allHeaders: loosen(contract.allHeaders),
    successHeaders: loosen(contract.successHeaders),
  };
}
