import type { Middleware } from 'rest-conventions';
import { HEALTH_PATHS } from './health-routes.js';

/** `middleware` for every request but the health probes (`HEALTH_PATHS`), which skip it. */
export function exceptHealth(middleware: Middleware): Middleware {
  return function exceptHealthProbes(ctx, next) {
    return HEALTH_PATHS.has(ctx.request.path) ? next() : middleware(ctx, next);
  };
}
