import { composePipeline } from '../core/compose.js';
import { contractsOf } from '../core/contract.js';
import { isPromise, type MaybePromise } from '../core/maybe-promise.js';
import { type RequestIdentity, type RequestIdOptions, requestIdentity } from '../core/request-identity.js';
import { answerRequestTarget } from '../core/request-target.js';
import { bodyBytes } from '../core/response.js';
import type { RouteDefinition, RouteInfo, RouteRegistry } from '../core/route.js';
import type { NamingRules } from '../core/route-pattern.js';
import { Router } from '../core/router.js';
import { methodNotAllowedError, notFoundError } from '../core/unmatched.js';
import { renderError } from '../errors/render.js';
import type { ApiResponse, Context, Logger, Middleware, RequestView } from '../http/types.js';
import type { JsonSchemaConverter } from '../validation/standard-schema.js';
import { checkLinkTargets } from './declared-links.js';
import { enterRoute, runnableRoute } from './route-runner.js';

export interface AppOptions {
  /** Application middleware, outermost first; runs for every request, matched or not. */
  readonly use?: readonly Middleware[];
  /** Where server-side failures are logged (default: one JSON line on stderr). */
  readonly logger?: Logger;
  /** Naming rules checked when routes are registered (see `route-pattern`). */
  readonly naming?: NamingRules;
  /** Request id: header to read and echo (default `x-request-id`) and id generator. */
  readonly requestId?: RequestIdOptions;
  /**
   * The JSON Schema 2020-12 of a Standard Schema validator that gives none itself (valibot, through
   * `@valibot/to-json-schema`); zod 4.2+ and arktype give theirs. Without it such a validator is
   * refused when its route is registered (docs/validation.md).
   */
  readonly jsonSchema?: JsonSchemaConverter;
}

/** An application: routes plus middleware, answering neutral requests with neutral responses. */
export interface App extends RouteRegistry<App> {
  /** Answer one request. Never rejects: every failure becomes an error response. */
  handle(request: RequestView): Promise<ApiResponse>;
  /** Where the app logs (`createApp`'s `logger`); adapters warn about their set-up through it. */
  readonly logger: Logger;
}

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
  const identity = requestIdentity(options.requestId);

  const dispatch = (ctx: Context): MaybePromise<ApiResponse> => {
    const { method, path } = ctx.request;
    const match = router.match(method, path);
    switch (match.kind) {
      case 'not-found':
        throw notFoundError();
      case 'method-not-allowed':
        throw methodNotAllowedError(method, match.allow);
      case 'options':
        return { status: 204, headers: { allow: match.allow } };
    }
    enterRoute(ctx, match.route, match.params);
    // The router's entry holds the route's composed pipeline (see `route` below).
    return match.route.handler(ctx);
  };

  const onError = (error: unknown, ctx: Context) => renderError(error, ctx);
  const pipeline = composePipeline(options.use ?? [], dispatch, onError);

  const declared: RouteInfo[] = [];
  // The request id is on every response (the app's own contract, before its layers').
  const requestIdContract = {
    allHeaders: {
      [options.requestId?.header ?? 'X-Request-Id']: {
        // Not `required`: the same description serves framework routes run with `conventions()`.
        description: 'The request id.',
      },
    },
  };
  const declareOptions = options.jsonSchema === undefined ? {} : { jsonSchema: options.jsonSchema };
  const appContracts = [requestIdContract, ...contractsOf(options.use ?? [])];
  // Links may lead to routes registered after theirs: checked once all are, when the routes are
  // first listed or the first request is answered, and again after any later registration.
  let linksChecked = false;
  const checkLinks = (): void => {
    if (linksChecked) return;
    checkLinkTargets(declared);
    linksChecked = true;
  };
  const app: App = {
    logger,
    route(definition) {
      const route = runnableRoute(definition as unknown as RouteDefinition, onError, declareOptions);
      linksChecked = false;
      router.add({
        method: definition.method,
        path: definition.path,
        handler: route.pipeline,
        facts: route.info,
        negotiate: route.negotiate,
      });
      // The app's layers run on every route: their contracts are part of each route's.
      declared.push(
        Object.freeze({
          ...route.info,
          contracts: Object.freeze([...appContracts, ...route.info.contracts]),
        }),
      );
      return app;
    },
    routes() {
      checkLinks();
      return Object.freeze(declared.slice());
    },
    handle(request) {
      // Never throws: the pipeline has made every throw a response, and a failure here (an id
      // generator, a HEAD body that cannot be serialized) rejects, as in an async function, so the
      // adapter answers with its fallback 500.
      try {
        checkLinks();
        const ctx = identity.contextOf(request, logger);
        const result = answerRequestTarget(ctx) ?? pipeline(ctx);
        return isPromise(result)
          ? result.then((response) => finalize(response, ctx, identity))
          : Promise.resolve(finalize(result, ctx, identity));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return app;
}

function finalize(response: ApiResponse, ctx: Context, identity: RequestIdentity): ApiResponse {
  const { headers } = identity.stamp(response, ctx);
  if (ctx.request.method === 'HEAD') {
    const bytes = bodyBytes(response);
    if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
    response.raw = undefined;
    response.json = undefined;
  }
  return response;
}
