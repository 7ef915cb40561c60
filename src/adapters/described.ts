/**
 * Described routes in a framework's own router, framework-free: a route declared with the library's
 * codecs (`params`, `query`, `body`, `responses`, `auth`) is registered where the framework registers
 * its routes, runs the core's pipeline for a matched route (406, auth, decoding, its `use`, the body,
 * the handler with typed input), and is listed for `openApiDocument(routes.routes(), options)`, as
 * `app.routes()` lists a rest-conventions app's (see `docs/adapters.md`, `docs/openapi.md`).
 */

import type { DeclareOptions } from '../app/declare-route.js';
import { checkLinkTargets } from '../app/declared-links.js';
import { enterRoute, runnableRoute } from '../app/route-runner.js';
import type { RouteDefinition, RouteInfo, RouteRegistry } from '../core/route.js';
import { renderError } from '../errors/render.js';
import type { ApiResponse, Context, Params } from '../http/types.js';

/** The routes declared in a framework's own router (see `RouteRegistry`). */
export interface DescribedRoutes extends RouteRegistry<DescribedRoutes> {}

/**
 * How a framework's described routes are declared: `jsonSchema`, the JSON Schema 2020-12 of a
 * Standard Schema validator that gives none itself, as `createApp`'s option.
 */
export interface DescribedRoutesOptions extends DeclareOptions {}

/** A declared route as a framework registers it. */
export interface FrameworkRegistration {
  /** Upper-case method. */
  readonly method: string;
  /** The path in the framework's syntax: `{id}` as `:id`. */
  readonly path: string;
  /**
   * Runs the route for a request the framework matched, on the rest-conventions context; never
   * rejects: every failure is an error response.
   */
  readonly run: (ctx: Context, params: Params) => Promise<ApiResponse>;
}

/**
 * The framework-free half of `describedRoutes`: `register` puts one declared route into the
 * framework's router. A declaration the library refuses throws a TypeError naming the route.
 */
export function describedRoutes(
  register: (route: FrameworkRegistration) => void,
  options: DescribedRoutesOptions = {},
): DescribedRoutes {
  const declared: RouteInfo[] = [];
  const described: DescribedRoutes = {
    route(definition) {
      const route = runnableRoute(definition as unknown as RouteDefinition, renderError, options);
      const entry = { pattern: route.info.pattern, facts: route.info, negotiate: route.negotiate };
      register({
        method: route.info.method,
        path: route.info.pattern.replace(/\{([^}]+)\}/g, ':$1'),
        run: (ctx, params) => {
          try {
            enterRoute(ctx, entry, params);
            return Promise.resolve(route.pipeline(ctx));
          } catch (error) {
            return Promise.resolve(renderError(error, ctx));
          }
        },
      });
      declared.push(route.info);
      return described;
    },
    routes: () => {
      checkLinkTargets(declared);
      return Object.freeze(declared.slice());
    },
  };
  return described;
}

/** The error when a described route runs outside `conventions(...)`: a server mistake, logged as a 500. */
export function outsideConventions(framework: string): Error {
  return new Error(
    `${framework} describedRoutes: the route runs outside conventions(...); register conventions first`,
  );
}
