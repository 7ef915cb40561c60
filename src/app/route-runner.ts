/**
 * A declared route once the path matched, as `createApp`'s router and the framework adapters'
 * described routes run it: the response media type negotiated among the route's `produces` (406,
 * RFC 9110 section 12.5.1), `ctx.params`, `ctx.route` set, then the route's pipeline (auth, decoding,
 * its `use`, the body, the handler) and the negotiated `Content-Type` (see `docs/architecture.md`).
 */

import { composePipeline, defineMiddleware } from '../core/compose.js';
import { isPromise, type MaybePromise } from '../core/maybe-promise.js';
import { underMountPath } from '../core/mount-path.js';
import { notAcceptableError, RESPONSE_MEDIA_TYPE } from '../core/response-media-type.js';
import type { RouteDefinition } from '../core/route.js';
import { appendListHeader, VARY_ACCEPT } from '../http/header-copy.js';
import { JSON_API, negotiateResponseType, RESPONSE_MEDIA_TYPES } from '../http/media-types.js';
import type { ApiResponse, Context, Handler, Params, RouteFacts } from '../http/types.js';
import { type DeclaredRoute, type DeclareOptions, declareRoute, NOT_ACCEPTABLE } from './declare-route.js';
import { responseLinker } from './declared-links.js';

/** A declaration compiled to run: its declaration, and its pipeline with the negotiated type. */
export interface RunnableRoute extends DeclaredRoute {
  /** The route's pipeline; a throw in any layer is that layer's error response (`onError`). */
  readonly pipeline: Handler;
}

/** Checks and compiles a declaration (a TypeError names the route). */
export function runnableRoute(
  definition: RouteDefinition,
  onError: (error: unknown, ctx: Context) => ApiResponse,
  options?: DeclareOptions,
): RunnableRoute {
  const route = declareRoute(definition, options);
  const { handler } = route;
  // Declared links are written before the mount path moves every link (`withContentType`).
  const addLinks = responseLinker(route.info.responses);
  const finish = (response: ApiResponse, ctx: Context): ApiResponse => {
    addLinks?.(response);
    return withContentType(response, ctx);
  };
  const withType = (ctx: Context): MaybePromise<ApiResponse> => {
    const response = handler(ctx);
    return isPromise(response) ? response.then((r) => finish(r, ctx)) : finish(response, ctx);
  };
  return { ...route, pipeline: composePipeline([varyOnAccept, ...route.use], withType, onError) };
}

/**
 * `Vary: Accept` on every answer of a declared route, outermost, so an answer a layer gives early (a
 * 304, a 412, an idempotency replay) says it as the handler's does: which format is sent, JSON:API
 * or JSON, and whether a 406, is chosen from `Accept` (RFC 9110 section 12.5.5). JSON:API 1.1
 * ("Content Negotiation") asks it of a server reading `ext` and `profile`, with or without either.
 */
const varyOnAccept = defineMiddleware({
  after: (_ctx, response) => {
    appendListHeader(response.headers, 'vary', VARY_ACCEPT);
    return response;
  },
});

/** What entering a matched route needs: its pattern, facts and media type negotiator. */
export interface MatchedRoute {
  readonly pattern: string;
  readonly facts?: RouteFacts | undefined;
  readonly negotiate?: DeclaredRoute['negotiate'];
}

/**
 * Negotiates the response media type and sets the route on `ctx`. When nothing is acceptable the 406
 * is kept for where a representation would be sent ({@link NOT_ACCEPTABLE}): the route's errors keep
 * their status, in a format the client accepts.
 */
export function enterRoute(ctx: Context, route: MatchedRoute, params: Params): void {
  const { negotiate } = route;
  const accept = ctx.request.headers.get('accept');
  const mediaType = negotiate === undefined ? negotiateResponseType(accept) : negotiate(accept);
  if (mediaType === undefined) {
    const offered = route.facts?.produces ?? RESPONSE_MEDIA_TYPES;
    ctx.set(
      NOT_ACCEPTABLE,
      notAcceptableError(
        `None of the media types this resource offers is acceptable: ${offered.join(', ')}.`,
      ),
    );
  } else ctx.set(RESPONSE_MEDIA_TYPE, mediaType);
  ctx.params = params;
  ctx.routePattern = route.pattern;
  ctx.route = route.facts;
}

function withContentType(response: ApiResponse, ctx: Context): ApiResponse {
  const { mountPath } = ctx.request;
  if (mountPath !== undefined && mountPath !== '') underMountPath(response, mountPath);
  if (
    (response.json !== undefined || (response.raw !== undefined && ctx.route?.produces !== undefined)) &&
    response.headers['content-type'] === undefined
  ) {
    const type = ctx.get(RESPONSE_MEDIA_TYPE) ?? RESPONSE_MEDIA_TYPES[0]!;
    const profiles = ctx.route?.profiles;
    // JSON:API 1.1 "Profiles": the profiles applied are named in the `profile` parameter.
    response.headers['content-type'] =
      profiles === undefined || type !== JSON_API ? type : `${JSON_API}; profile="${profiles.join(' ')}"`;
  }
  return response;
}
