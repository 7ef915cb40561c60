/**
 * Described routes in Express's own router: `describedRoutes(app)` (or an `express.Router()`), then
 * `.route({ method, path, params, query, body, responses, auth, handler })`. See `docs/adapters.md`.
 */
import type { NextFunction, Request, Response } from 'express';
import {
  type DescribedRoutes,
  type DescribedRoutesOptions,
  describedRoutes as described,
  outsideConventions,
} from '../described.js';
import { CONTEXTS, sendResponse } from './context.js';

/** What `describedRoutes` registers on: an Express app or router (`route(path).get(handler)`). */
export interface ExpressRouterLike {
  route(path: string): unknown;
}

type RouteMethods = Record<
  string,
  (handler: (req: Request, res: Response, next: NextFunction) => void) => void
>;

/**
 * Declared routes registered on an Express app or router, run on the context of `conventions(...)`
 * (before them): the library decodes and checks the request as `createApp` does, the handler gets
 * typed `ctx.params`, `ctx.query`, `ctx.body` and `ctx.var.principal`, and its response goes out through
 * Express and the primitives. `routes()` lists the declarations for `openApiDocument`.
 */
export function describedRoutes(
  router: ExpressRouterLike,
  options: DescribedRoutesOptions = {},
): DescribedRoutes {
  if (typeof router?.route !== 'function') {
    throw new TypeError('express describedRoutes: pass the Express app or router the routes go on');
  }
  return described(({ method, path, run }) => {
    const route = router.route(path) as RouteMethods;
    route[method.toLowerCase()]!(function expressDescribedRoute(req, res, next) {
      const ctx = CONTEXTS.get(req);
      if (ctx === undefined) {
        next(outsideConventions('express'));
        return;
      }
      run(ctx, req.params as Record<string, string>).then((response) => sendResponse(res, response), next);
    });
  }, options);
}
