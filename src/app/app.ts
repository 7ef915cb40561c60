import { composePipeline, type MaybePromise } from '../core/compose.js';
import { RequestContext } from '../core/context.js';
import { contractsOf } from '../core/contract.js';
import { httpDate } from '../core/http-date.js';
import { underMountPath } from '../core/mount-path.js';
import { bodyBytes } from '../core/response.js';
import { RESPONSE_MEDIA_TYPE } from '../core/response-media-type.js';
import type { RouteAuth, RouteDefinition, RouteInfo } from '../core/route.js';
import type { NamingRules } from '../core/route-pattern.js';
import { Router } from '../core/router.js';
import { ApiError } from '../errors/api-error.js';
import { echo } from '../errors/echo.js';
import { renderError } from '../errors/render.js';
import { negotiateResponseType, RESPONSE_MEDIA_TYPES } from '../http/media-types.js';
import type { ApiResponse, Context, Logger, Middleware, RequestView } from '../http/types.js';
import { declareRoute } from './declare-route.js';

export interface AppOptions {
  /** Application middleware, outermost first; runs for every request, matched or not. */
  readonly use?: readonly Middleware[];
  /** Where server-side failures are logged (default: one JSON line on stderr). */
  readonly logger?: Logger;
  /** Naming rules checked when routes are registered (see `route-pattern`). */
  readonly naming?: NamingRules;
  /** Request id: header to read and echo (default `x-request-id`) and id generator. */
  readonly requestId?: { readonly header?: string; readonly generate?: () => string };
}

/** An application: routes plus middleware, answering neutral requests with neutral responses. */
export interface App {
  /**
   * Register a declared route (chainable). Its `{params}`, declared `query` and `body`, and what its
   * middleware and `auth` add are typed in the handler without annotations.
   */
  route<
    const P extends string,
    PC = {},
    QC = undefined,
    B = undefined,
    V extends object = {},
    const A extends RouteAuth | undefined = undefined,
  >(definition: RouteDefinition<P, PC, QC, B, V, A>): App;
  /** The declared routes, frozen, in registration order: for OpenAPI generators, linters, test kits. */
  routes(): readonly RouteInfo[];
  /** Answer one request. Never rejects: every failure becomes an error response. */
  handle(request: RequestView): Promise<ApiResponse>;
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

/** Default logger: one JSON line per event on stderr (`info` and `debug` are left out). */
export const jsonLineLogger: Logger = {
  error: (fields, message) => process.stderr.write(`${safeJson({ level: 'error', message, ...fields })}\n`),
  warn: (fields, message) => process.stderr.write(`${safeJson({ level: 'warn', message, ...fields })}\n`),
};

function safeJson(value: Record<string, unknown>): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: v.cause } : v,
  );
}

/**
 * Create an application.
 *
 * @example
 * const app = createApp({ use: [securityHeaders()] });
 * app.route({ method: 'GET', path: '/books/{id}', handler: (ctx) => json(200, { data: ... }) });
 * http.createServer(toNodeHandler(app)).listen(3000);
 */
export function createApp(options: AppOptions = {}): App {
  const logger = options.logger ?? jsonLineLogger;
  const router = new Router(options.naming, (message, fields) => logger.warn(fields, message));
  const idHeader = (options.requestId?.header ?? 'x-request-id').toLowerCase();
  const generateId = options.requestId?.generate ?? (() => crypto.randomUUID());

  const dispatch = (ctx: Context): MaybePromise<ApiResponse> => {
    const { method, path } = ctx.request;
    const match = router.match(method, path);
    switch (match.kind) {
      case 'not-found':
        throw new ApiError(404, { detail: 'No resource exists at this path.' });
      case 'method-not-allowed':
        throw new ApiError(405, {
          detail: `${echo(method)} is not allowed here; allowed: ${match.allow}.`,
          headers: { allow: match.allow },
        });
      case 'options':
        return { status: 204, headers: { allow: match.allow } };
    }
    const { route } = match;
    const { negotiate } = route;
    const accept = ctx.request.headers.get('accept');
    const mediaType = negotiate === undefined ? negotiateResponseType(accept) : negotiate(accept);
    if (mediaType === undefined) {
      const offered = route.facts?.produces ?? RESPONSE_MEDIA_TYPES;
      throw new ApiError(406, {
        code: 'not-acceptable',
        detail: `None of the media types this resource offers is acceptable: ${offered.join(', ')}.`,
        source: { header: 'Accept' },
      });
    }
    ctx.set(RESPONSE_MEDIA_TYPE, mediaType);
    ctx.params = match.params;
    ctx.routePattern = route.pattern;
    ctx.route = route.facts;
    // The router's entry holds the route's composed pipeline (see `route` below).
    return match.route.handler(ctx);
  };

  const onError = (error: unknown, ctx: Context) => renderError(error, ctx);
  const pipeline = composePipeline(options.use ?? [], dispatch, onError);

  const declared: RouteInfo[] = [];
  const appContracts = contractsOf(options.use ?? []);
  const app: App = {
    route(definition) {
      const route = declareRoute(definition as unknown as RouteDefinition);
      const { handler } = route;
      const withType = (ctx: Context): MaybePromise<ApiResponse> => {
        const response = handler(ctx);
        return response instanceof Promise
          ? response.then((r) => withContentType(r, ctx))
          : withContentType(response, ctx);
      };
      router.add({
        method: definition.method,
        path: definition.path,
        handler: composePipeline(route.use, withType, onError),
        facts: route.info,
        negotiate: route.negotiate,
      });
      // The app's layers run on every route: their contracts are part of each route's.
      declared.push(
        appContracts.length === 0
          ? route.info
          : Object.freeze({
              ...route.info,
              contracts: Object.freeze([...appContracts, ...route.info.contracts]),
            }),
      );
      return app;
    },
    routes() {
      return Object.freeze(declared.slice());
    },
    handle(request) {
      // Never throws: the pipeline has made every throw a response, and a failure here (an id
      // generator, a HEAD body that cannot be serialized) rejects, as in an async function, so the
      // adapter answers with its fallback 500.
      try {
        const sent = request.headers.get(idHeader);
        const requestId = sent !== undefined && SANE_REQUEST_ID.test(sent) ? sent : generateId();
        const ctx = new RequestContext(request, requestId, logger);
        const result = pipeline(ctx);
        return result instanceof Promise
          ? result.then((response) => finalize(response, ctx, idHeader))
          : Promise.resolve(finalize(result, ctx, idHeader));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return app;
}

function withContentType(response: ApiResponse, ctx: Context): ApiResponse {
  const { mountPath } = ctx.request;
  if (mountPath !== undefined && mountPath !== '') underMountPath(response, mountPath);
  if (
    (response.json !== undefined || (response.raw !== undefined && ctx.route?.produces !== undefined)) &&
    response.headers['content-type'] === undefined
  ) {
    response.headers['content-type'] = ctx.get(RESPONSE_MEDIA_TYPE) ?? RESPONSE_MEDIA_TYPES[0]!;
  }
  return response;
}

function finalize(response: ApiResponse, ctx: Context, idHeader: string): ApiResponse {
  const { headers } = response;
  headers[idHeader] = ctx.requestId;
  headers.date ??= httpDate();
  if (ctx.request.method === 'HEAD') {
    const bytes = bodyBytes(response);
    if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
    response.raw = undefined;
    response.json = undefined;
  }
  return response;
}
