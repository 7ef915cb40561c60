import type * as t from 'io-ts';
import type { DeclaredRouteDefinition, LayersAdd, RouteAuth, RouteDefinition } from '../core/route.js';
import type { ParamsOf } from '../core/route-pattern.js';
import type { ApiResponse, Context, Handler, Middleware, Variables } from '../http/types.js';
import { NO_PATH_VERSION, type VersionAdds, versioningWith } from './middleware.js';
import { type VersioningOptions, versionPolicy } from './policy.js';
import type { VersionChanges } from './transforms.js';

/** The segment of a versioned pattern that names the version: `/v{version}/users/{id}`. */
export const VERSION_SEGMENT_TEMPLATE = 'v{version}';

/** The route parameters of a versioned pattern: its `{params}` without the version. */
export type VersionedParams<P extends string> = {
  readonly [K in Exclude<keyof ParamsOf<P>, 'version'>]: string;
};

/**
 * The context of a versioned route's handler: its path parameters, and `var` typed from its `use`
 * list, with the negotiated `apiVersion`.
 */
export type VersionedContext<P extends string, U extends readonly unknown[]> = Omit<
  Context<VersionedParams<P>>,
  'var'
> & { readonly var: Readonly<LayersAdd<U> & VersionAdds & Variables> };

/** One handler mounted on every version of a path. */
export interface VersionedRouteDefinition<
  P extends string,
  U extends readonly Middleware<Context<VersionedParams<P>>, object>[] = readonly Middleware<
    Context<VersionedParams<P>>,
    object
  >[],
> {
  readonly method: string;
  /**
   * A pattern with one `v{version}` segment: `/v{version}/users/{id}`, `/api/v{version}/standards/`.
   * Each path version gets its own route (`/v1/users/{id}`, `/v2/users/{id}`).
   */
  readonly path: P;
  /** How versions are chosen (supported, default, conflict rule, ...). */
  readonly versioning: VersioningOptions;
  /** The versions mounted in the path (default: every supported version). */
  readonly pathVersions?: readonly number[];
  /**
   * Also mount the pattern without its version segment (`/users/{id}`), where `Accept` or the default
   * chooses the version (default `false`).
   */
  readonly unversioned?: boolean;
  /** Transforms from `defineVersions`: the handler then speaks only the newest version. */
  readonly changes?: VersionChanges;
  /**
   * Route middleware, run after version negotiation and outside the response transforms. Handlers
   * write links unversioned and pass them through `versionedPath(ctx, path)`, which puts back the
   * version segment of the path the request was asked by.
   */
  readonly use?: U;
  /**
   * Codecs of the path parameters (the version aside), decoded as a declared route's are (404 for a
   * segment one refuses, before `use`) and described in the document: the resource's id codec, for a
   * path naming a resource (`params: { id: userId }`). They decode to strings, as the handler reads them.
   */
  readonly params?: { readonly [K in keyof VersionedParams<P>]?: t.Type<string, string, unknown> };
  readonly handler: (ctx: VersionedContext<P, U>) => Promise<ApiResponse> | ApiResponse;
  /** What every mounted route declares (see `RouteDefinition`), for `app.routes()` and generators. */
  readonly responses?: RouteDefinition['responses'];
  readonly auth?: RouteAuth;
  readonly deprecated?: RouteDefinition['deprecated'];
}

/**
 * The routes that mount one handler on each version of a path, every one negotiating its version
 * (see docs/versioning.md): `/v1/users/{id}` is version 1 (and refuses `Accept: ...;version=2` with 400),
 * the unversioned `/users/{id}` takes `Accept`'s version or the default.
 *
 * @example
 * for (const route of versionedRoutes({
 *   method: 'GET',
 *   path: '/v{version}/users/{id}',
 *   unversioned: true,
 *   versioning: { supported: [1, 2], default: 1 },
 *   changes: userVersions,
 *   handler: (ctx) => json(200, { data: userResource(ctx.params.id) }),
 * })) app.route(route);
 */
export function versionedRoutes<
  P extends string,
  const U extends readonly Middleware<Context<VersionedParams<P>>, object>[],
>(definition: VersionedRouteDefinition<P, U>): DeclaredRouteDefinition[] {
  const policy = versionPolicy(definition.versioning);
  const segments = definition.path.split('/');
  const at = segments.indexOf(VERSION_SEGMENT_TEMPLATE);
  if (at === -1 || segments.lastIndexOf(VERSION_SEGMENT_TEMPLATE) !== at) {
    throw new TypeError(
      `versionedRoutes: the path must contain exactly one "${VERSION_SEGMENT_TEMPLATE}" segment, got ${definition.path}`,
    );
  }
  const pathVersions = definition.pathVersions ?? [...policy.newestFirst].reverse();
  for (const version of pathVersions) {
    if (!policy.supported.has(version)) {
      throw new TypeError(
        `versionedRoutes: path version ${String(version)} is not among the supported versions`,
      );
    }
  }
  const { changes } = definition;
  if (changes !== undefined) {
    const missing = [...policy.supported].filter((version) => !changes.supported.includes(version));
    if (missing.length > 0) {
      throw new TypeError(
        `versionedRoutes: no transforms lead to version ${missing.join(', ')}; defineVersions covers ${changes.supported.join(', ')}`,
      );
    }
  }
  // The transforms are innermost: whatever the route's middleware sees (a body hashed for an ETag,
  // a response stored for idempotency) is already in the negotiated version.
  const inner = [
    ...((definition.use ?? []) as readonly Middleware[]),
    ...(changes ? [changes.middleware] : []),
  ];
  const { responses, auth, deprecated, params } = definition;
  const declared = {
    ...(params === undefined ? {} : { params }),
    ...(responses === undefined ? {} : { responses }),
    ...(auth === undefined ? {} : { auth }),
    ...(deprecated === undefined ? {} : { deprecated }),
  };
  const route = (path: string, negotiate: Middleware): DeclaredRouteDefinition => ({
    ...declared,
    method: definition.method,
    path,
    use: [negotiate, ...inner],
    handler: definition.handler as Handler,
  });

  const routes = pathVersions.map((version) => {
    const path = segments.map((segment, i) => (i === at ? `v${version}` : segment)).join('/');
    return route(
      path,
      versioningWith(policy, () => version, { at, segment: `v${version}` }),
    );
  });
  if (definition.unversioned === true) {
    const path = segments.filter((_, i) => i !== at).join('/') || '/';
    routes.push(route(path, versioningWith(policy, NO_PATH_VERSION)));
  }
  return routes;
}
