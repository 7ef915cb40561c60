/**
 * Express's answer to a path or method none of its routes takes, as the core router gives it: an
 * error document (404, or 405 with `Allow`), through the primitives and `conventionsErrors()`, rather
 * than Express's HTML `Cannot GET /path` (see `docs/adapters.md`).
 */
import type { Application, NextFunction, Request, RequestHandler, Response } from 'express';
import { type FrameworkRoute, unmatched } from '../unmatched.js';

/** The parts of Express's router this reads: its layers, and each route's path and methods. */
interface RouterLayer {
  readonly route?: { readonly path?: unknown; readonly methods?: Record<string, boolean> };
}

/** The routes registered on the app itself (routes of a nested router are not seen). */
function* expressRoutes(app: Application): Iterable<FrameworkRoute> {
  const stack = (app as unknown as { router?: { stack?: readonly RouterLayer[] } }).router?.stack ?? [];
  for (const layer of stack) {
    const { route } = layer;
    if (route === undefined || typeof route.path !== 'string') continue;
    for (const [method, on] of Object.entries(route.methods ?? {})) {
      if (on && method !== '_all') yield { method, path: route.path };
    }
  }
}

/**
 * After your routes and before `conventionsErrors()`: `app.use(conventionsNotFound())`. A request no
 * route took is 404 `No resource exists at this path.`, or 405 with `Allow` when a route of the app
 * has the path with another method; both as error documents with the primitives' headers and
 * `Cache-Control: no-store` (RFC 9110 sections 15.5.5 and 15.5.6).
 */
export function conventionsNotFound(): RequestHandler {
  return function expressConventionsNotFound(req: Request, res: Response, next: NextFunction) {
    const answer = unmatched(expressRoutes(req.app), req.method, req.path);
    if ('error' in answer) {
      next(answer.error);
      return;
    }
    res.status(204).set('allow', answer.options).end();
  };
}
