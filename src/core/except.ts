import type { MiddlewareHooks } from '../http/middleware-hooks.js';
import type { Context, Middleware } from '../http/types.js';
import { defineMiddleware } from './compose.js';
import { contractOf, describeLayer, type OperationContract } from './contract.js';

/** Which requests skip the layer: exact request paths, or a test of the request's context. */
export type ExceptCondition<C extends Context = Context> = readonly string[] | ((ctx: C) => boolean);

/**
 * `middleware` for every request but those `condition` picks, which skip it (as Hono's `except`).
 * A layer given as hooks (`defineMiddleware`, as `rateLimit` is) stays hooks, so the pipeline still
 * calls it in place rather than as an async frame around the rest of every request. Its contract
 * (what `describeLayer` declares for the OpenAPI document) goes with it, with the headers it promised no longer
 * required: the skipped responses do not carry them. Paths given as a list are named in the
 * contract's `exceptPaths`, so their operations declare none of the layer's statuses or headers.
 *
 * @example
 * // Health probes are never rate limited: a limited probe would take a healthy instance out of rotation.
 * createApp({ use: [except(['/health/live', '/health/ready'], rateLimit({ policies }))] });
 */
export function except<C extends Context = Context>(
  condition: ExceptCondition<C>,
  middleware: Middleware<C>,
): Middleware<C> {
  const skip = skipOf(condition);
  if (typeof middleware !== 'function') throw new TypeError('except: middleware must be a middleware');
  const { hooks } = middleware as { readonly hooks?: MiddlewareHooks<C, unknown> };
  const skipping: Middleware<C> =
    hooks === undefined
      ? function exceptSkipping(ctx, next) {
          return skip(ctx) ? next() : middleware(ctx, next);
        }
      : skippingHooks(hooks, skip);
  // Skipped paths named in advance leave the layer out of those operations' description entirely.
  const skippedPaths = typeof condition === 'function' ? [] : condition;
  return describeLayer(
    skipping,
    ...contractOf(middleware).map((contract) => skippedOn(notPromised(contract), skippedPaths)),
  );
}

/** The contract with `paths` added to the operations it does not apply to (`exceptPaths`). */
function skippedOn(contract: OperationContract, paths: readonly string[]): OperationContract {
  if (paths.length === 0) return contract;
  return { ...contract, exceptPaths: [...new Set([...(contract.exceptPaths ?? []), ...paths])] };
}

function skipOf<C extends Context>(condition: ExceptCondition<C>): (ctx: C) => boolean {
  if (typeof condition === 'function') return condition;
  if (
    !Array.isArray(condition) ||
    condition.some((path) => typeof path !== 'string' || !path.startsWith('/'))
  ) {
    throw new TypeError('except: condition must be a list of paths (each starting with /) or a function');
  }
  const paths = new Set(condition);
  return (ctx) => paths.has(ctx.request.path);
}

/** The same hooks, not called on a skipped request (asked again on the way out: a hook may not change it). */
function skippingHooks<C extends Context>(
  hooks: MiddlewareHooks<C, unknown>,
  skip: (ctx: C) => boolean,
): Middleware<C> {
  const { before, after } = hooks;
  return defineMiddleware<C, unknown>({
    ...(before === undefined ? {} : { before: (ctx: C) => (skip(ctx) ? undefined : before(ctx)) }),
    ...(after === undefined
      ? {}
      : {
          after: (ctx: C, response, state) => (skip(ctx) ? response : after(ctx, response, state)),
        }),
  });
}

function notPromised(contract: OperationContract): OperationContract {
  const loosen = (headers: OperationContract['allHeaders']) =>
    headers &&
    Object.fromEntries(
      Object.entries(headers).map(([name, header]) => [name, { ...header, required: false }]),
    );
  return {
    ...contract,
    allHeaders: loosen(contract.allHeaders),
    successHeaders: loosen(contract.successHeaders),
  };
}
