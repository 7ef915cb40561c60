import { describeLayer } from '../core/contract.js';
import { RESPONSE_MEDIA_TYPE } from '../core/response-media-type.js';
import { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { appendListHeader, VARY_ACCEPT } from '../http/header-copy.js';
import { essence } from '../http/media-types.js';
import { type ApiResponse, type Context, contextKey, type Middleware } from '../http/types.js';
import { negotiateVersion, VERSION_PARAMETER, type VersionDecision } from './negotiate.js';
import { versionInPath } from './path-version.js';
import { isVersionNumber, type VersioningOptions, type VersionPolicy, versionPolicy } from './policy.js';

/** What {@link versioning} adds to `ctx.var`: the API version chosen for this request. */
export interface VersionAdds {
  readonly apiVersion: number;
}

/**
 * Where the route that answers names its version: the index of the `v<N>` segment among the path's
 * `/`-separated segments, and that segment. Set by the routes {@link versionedRoutes} mounts on a
 * path version; read by {@link versionedPath}.
 */
export interface PathVersionSegment {
  readonly at: number;
  readonly segment: string;
}

const PATH_VERSION_SEGMENT = contextKey<PathVersionSegment>('path version segment');

/**
 * The link to `path` (an unversioned path, `/users/1`) in the version this request was asked by, so
 * that a representation's links lead back to the same version: on `/v2/users/{id}` it is `/v2/users/1`,
 * on the unversioned `/users/{id}` (version chosen by `Accept` or the default) it stays `/users/1`.
 * Outside a route that `versionedRoutes` mounted on a path version, `path` is returned unchanged.
 *
 * @example
 * const self = versionedPath(ctx, `/users/${user.id}`);
 */
export function versionedPath(ctx: Context, path: string): string {
  const place = ctx.get(PATH_VERSION_SEGMENT);
  if (place === undefined) return path;
  const segments = path.split('/');
  if (segments.length < place.at) return path;
  segments.splice(place.at, 0, place.segment);
  return segments.join('/');
}

/** Reads the version a route's path names, or `undefined` when the path names none. */
export type PathVersionReader = (ctx: Context) => number | undefined;

export interface VersioningMiddlewareOptions extends VersioningOptions {
  /**
   * The version the path names: a number for a route mounted on one version (what `versionedRoutes`
   * passes), or a reader. Default: the first `v<N>` segment of the matched route pattern
   * (`/v2/users/{id}` → 2, `/api/v1/standards/` → 1), so use it as route middleware.
   */
  readonly pathVersion?: number | PathVersionReader;
}

/** For a route whose path names no version. */
export const NO_PATH_VERSION: PathVersionReader = () => undefined;

/** The default reader: a `v<N>` segment of `ctx.routePattern` (the pattern, never the raw path). */
const versionFromRoutePattern: PathVersionReader = (ctx) => {
  const pattern = ctx.routePattern;
  if (pattern === undefined) return undefined;
  // Patterns are the app's few registered routes: each is read once, not split on every request.
  if (!patternVersions.has(pattern)) patternVersions.set(pattern, versionInPath(pattern));
  return patternVersions.get(pattern);
};

const patternVersions = new Map<string, number | undefined>();

/**
 * Version negotiation (see docs/versioning.md) as route middleware: decides the version from the path and
 * the `Accept` media-type parameter (see {@link negotiateVersion}), adds it as `ctx.var.apiVersion`,
 * and
 * - answers 404 / 406 / 400 as an {@link ApiError} when the version cannot be served;
 * - adds `Vary: Accept` to every response it sees, errors and 304s included (RFC 9110 section 12.5.5),
 *   since `Accept` takes part in choosing the version;
 * - when `Accept` chose the version, labels a successful JSON response
 *   `Content-Type: <type>;version=<N>`.
 *
 * @example
 * app.route({ method: 'GET', path: '/users/{id}', use: [versioning({ supported: [1, 2], default: 1 })], handler });
 * // handler: const version = ctx.var.apiVersion;
 */
export function versioning(options: VersioningMiddlewareOptions): Middleware<Context, VersionAdds> {
  const policy = versionPolicy(options);
  return versioningWith(policy, pathVersionReader(options.pathVersion, policy));
}

/**
 * The middleware for an already validated policy (shared by `versionedRoutes`, which also says where
 * its path names the version, for {@link versionedPath}).
 */
export function versioningWith(
  policy: VersionPolicy,
  readPathVersion: PathVersionReader,
  pathSegment?: PathVersionSegment,
): Middleware<Context, VersionAdds> {
  const layer: Middleware = async function negotiateApiVersion(ctx, next) {
    const decision = negotiateVersion(
      { accept: ctx.request.headers.get('accept'), pathVersion: readPathVersion(ctx) },
      policy,
    );
    if (decision.kind === 'refused') {
      throw codedError(decision.status, decision.code, {
        detail: decision.detail,
        ...(decision.header ? { source: { header: decision.header } } : {}),
        headers: { vary: 'Accept' },
      });
    }
    ctx.var.apiVersion = decision.version;
    if (pathSegment !== undefined) ctx.set(PATH_VERSION_SEGMENT, pathSegment);
    if (decision.mediaType !== undefined) ctx.set(RESPONSE_MEDIA_TYPE, decision.mediaType);
    const response = await next();
    appendListHeader(response.headers, 'vary', VARY_ACCEPT);
    labelVersion(response, decision, policy);
    return response;
  };
  return describeLayer(layer, {
    allHeaders: {
      Vary: { description: 'Accept (RFC 9110 section 12.5.5).' },
    },
    requestHeaders: {
      Accept: {
        description: `The media type, with the API version as a parameter (\`application/vnd.api+json;version=<n>\`); versions: ${[...policy.supported].join(', ')}.`,
      },
    },
    responses: {
      400: { description: 'Bad Request: the path and Accept name different versions.' },
      406: { description: 'Not Acceptable: the version asked for is not served.' },
    },
  });
}

/** `Content-Type: application/vnd.api+json;version=2` on a successful response whose version Accept chose. */
function labelVersion(response: ApiResponse, decision: VersionDecision, policy: VersionPolicy): void {
  if (decision.kind !== 'chosen' || decision.mediaType === undefined || response.status >= 400) return;
  const contentType = response.headers['content-type'];
  if (contentType === undefined || !policy.mediaTypes.includes(essence(contentType))) return;
  if (/;\s*version\s*=/i.test(contentType)) return;
  response.headers['content-type'] = `${contentType};${VERSION_PARAMETER}=${decision.version}`;
}

function pathVersionReader(
  option: number | PathVersionReader | undefined,
  policy: VersionPolicy,
): PathVersionReader {
  if (option === undefined) return versionFromRoutePattern;
  if (typeof option === 'function') return option;
  if (!isVersionNumber(option)) {
    throw new TypeError(
      `versioning: "pathVersion" must be a positive integer or a function, got ${String(option)}`,
    );
  }
  if (!policy.supported.has(option)) {
    throw new TypeError(`versioning: "pathVersion" ${option} is not among the supported versions`);
  }
  const fixed = option;
  return () => fixed;
}
