/**
 * `rest-conventions/adapters/hono`: the primitives as native Hono 4 middleware (`conventions`, and
 * `conventionsErrors` for `app.onError`), and a whole rest-conventions app mounted under a path
 * (`mountApp`). Only web APIs are used here, so it runs wherever Hono runs (Node, Bun, Deno,
 * Workers). Hono is an optional peer dependency, imported for its types only. See `docs/adapters.md`.
 */
import type { ErrorHandler, Context as HonoContext, MiddlewareHandler } from 'hono';
import { type App, jsonLineLogger } from '../../app/app.js';
import { ApiError } from '../../errors/api-error.js';
import { renderError } from '../../errors/render.js';
import type { ApiResponse, Context, Logger, Principal } from '../../http/types.js';
import { jsonTextOf, malformedJsonError } from '../../validation/json-text.js';
import { callerCheck, type RequireCallerOptions } from '../caller.js';
import { type ConventionsOptions, conventionsRunner, mountPrefix, requestView } from '../conventions.js';
import {
  type DescribedRoutes,
  type DescribedRoutesOptions,
  describedRoutes as described,
  outsideConventions,
} from '../described.js';
import { fromFetchRequest, toFetchResponse } from '../fetch.js';
import { fetchHeaders } from '../fetch-headers.js';
import { runtimePeerAddress, warnOnceWithoutAddress } from '../runtime-address.js';
import { type FrameworkRoute, unmatched } from '../unmatched.js';

export type { RequireCallerOptions } from '../caller.js';
export type { ConventionsOptions } from '../conventions.js';
export type { DescribedRoutes, DescribedRoutesOptions } from '../described.js';
export type { FrameworkRoute } from '../unmatched.js';

/** Options every Hono driver takes for the client address. */
export interface HonoClientAddressOption {
  /**
   * The client's address (for rate limiting): e.g. `getConnInfo(c).remote.address` from
   * `@hono/node-server/conninfo` or `hono/bun`. Default: the socket peer of `@hono/node-server`'s
   * bindings when present, else unknown.
   */
  readonly clientAddress?: (c: HonoContext) => string | undefined;
}

/** Options of the Hono {@link conventions} middleware. */
export interface HonoConventionsOptions extends ConventionsOptions, HonoClientAddressOption {}

const CONTEXTS = new WeakMap<Request, Context>();

/** `@hono/node-server` passes the node request as `c.env.incoming`; other runtimes do not. */
function nodeIncoming(c: HonoContext): { socket?: { remoteAddress?: string }; url?: string } | undefined {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string }; url?: string } } | undefined)
    ?.incoming;
}

/**
 * The target as the client sent it, where `@hono/node-server` keeps it (Hono's own URL has been
 * resolved by the WHATWG parser), else the path and query of Hono's URL.
 */
function targetOf(c: HonoContext): string {
  const raw = nodeIncoming(c)?.url;
  if (raw !== undefined) return raw;
  const url = c.req.url;
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  return pathStart === -1 ? '/' : url.slice(pathStart);
}

/**
 * The client's address of each request: the option, else what the runtime passed as `c.env`
 * (`runtimePeerAddress`); the first request with neither logs a warning through `logger`.
 */
function addressOf(
  option: ((c: HonoContext) => string | undefined) | undefined,
  where: string,
  logger: Pick<Logger, 'warn'>,
): (c: HonoContext) => string | undefined {
  if (option !== undefined && typeof option !== 'function') {
    throw new TypeError(`${where}: clientAddress must be a function (c) => string | undefined`);
  }
  const warnWithoutAddress = warnOnceWithoutAddress(where, logger);
  return function clientAddressOf(c) {
    const address = option?.(c) ?? runtimePeerAddress(c.req.raw, c.env);
    if (address === undefined) warnWithoutAddress();
    return address;
  };
}

/** Hono's `HTTPException` (and anything shaped like it) keeps its status; its message shows below 500. */
function fromHonoError(thrown: unknown): unknown {
  if (thrown instanceof ApiError || !(thrown instanceof Error)) return thrown;
  const status = (thrown as { status?: unknown }).status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return thrown;
  return new ApiError(status, {
    ...(status < 500 && thrown.message !== '' ? { detail: thrown.message } : {}),
    cause: thrown,
  });
}

/** A fetch response as a neutral one (its bytes read once). */
async function neutralOf(response: Response): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'set-cookie') headers[name] = value;
  });
  const raw = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers, ...(raw === undefined ? {} : { raw }) };
}

/**
 * The primitives as Hono middleware: `app.use(conventions({ use: [securityHeaders(), ...] }))`.
 * A body read by a primitive is read through Hono's body cache, so `c.req.json()` still works.
 * Pair it with `app.onError(conventionsErrors())` so thrown errors become error documents.
 */
export function conventions(options: HonoConventionsOptions): MiddlewareHandler {
  const run = conventionsRunner(options, 'hono');
  const clientAddress = addressOf(
    options.clientAddress,
    'hono conventions',
    options.logger ?? jsonLineLogger,
  );
  return async function honoConventions(c, next) {
    const view = requestView({
      method: c.req.method,
      target: targetOf(c),
      headers: fetchHeaders(c.req.raw.headers),
      remoteAddress: clientAddress(c),
      body: () => cachedBody(c),
    });
    let setCookie: string[] = [];
    const outer = CONTEXTS.get(c.req.raw);
    const response = await run(
      view,
      async (ctx) => {
        CONTEXTS.set(c.req.raw, ctx);
        await next();
        setCookie = c.res.headers.getSetCookie();
        return neutralOf(c.res);
      },
      fromHonoError,
      outer,
    );
    // Unset first: assigning over an existing response would merge the old one's headers back in.
    c.res = undefined;
    const answer = toFetchResponse(response);
    for (const cookie of setCookie) answer.headers.append('set-cookie', cookie);
    c.res = answer;
  };
}

/**
 * The rest-conventions context of a request inside {@link conventions}: its `var` (what
 * its layers added: `var.principal` after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(c: HonoContext): Context | undefined {
  return CONTEXTS.get(c.req.raw);
}

/** What {@link requireCaller} gives the handlers after it: `c.get('principal')`. */
export interface CallerEnv {
  readonly Variables: { readonly principal: Principal };
}

/**
 * Route middleware after `conventions(...)`: `app.post('/orders', requireCaller(), (c) =>
 * c.get('principal').sub)`. Hono types the variable for the handlers after it (what
 * `createMiddleware<{ Variables: { principal: Principal } }>` gives); an anonymous request is the 401
 * `requireAuth()` answers, with `WWW-Authenticate` (RFC 6750 section 3.1), through `conventionsErrors()`.
 */
export function requireCaller(options?: RequireCallerOptions): MiddlewareHandler<CallerEnv> {
  const callerOf = callerCheck(options, 'hono');
  return async function honoRequireCaller(c, next) {
    c.set('principal', callerOf(CONTEXTS.get(c.req.raw)));
    await next();
  };
}

async function* cachedBody(c: HonoContext): AsyncIterable<Uint8Array> {
  // Hono keeps what it read, so the route's own `c.req.json()` reads the same bytes again.
  yield new Uint8Array(await c.req.arrayBuffer());
}

/**
 * `app.onError(conventionsErrors())`: an `ApiError`, Hono's `HTTPException` or anything else thrown
 * in a handler becomes a JSON:API error document, or problem+json when the client prefers it; the
 * `SyntaxError` of `c.req.json()` on a body that is not JSON is 400 `malformed-json`.
 */
export function conventionsErrors(): ErrorHandler {
  return async function honoConventionsErrors(error, c) {
    const ctx = CONTEXTS.get(c.req.raw);
    if (ctx === undefined) throw error;
    const malformed = await malformedBody(error, c);
    return toFetchResponse(renderError(malformed ?? fromHonoError(error), ctx));
  };
}

/**
 * `c.req.json()` throws JSON.parse's `SyntaxError` for a body that is not JSON: the client's mistake,
 * answered as `decodeJsonBody` answers it (400 `malformed-json`), not 500. It is told from a
 * `SyntaxError` of the app's own by reading the body again from Hono's cache (only a body already
 * read): it must fail to parse with the same message.
 */
async function malformedBody(error: unknown, c: HonoContext): Promise<ApiError | undefined> {
  if (!(error instanceof SyntaxError) || Object.keys(c.req.bodyCache).length === 0) return undefined;
  const message = error.message.slice(0, 120);
  let body: string;
  try {
    body = await c.req.text();
  } catch (thrown) {
    // A Hono that caches the parse itself hands on its rejection: the very error.
    return thrown === error ? malformedJsonError({ ok: false, reason: 'syntax', message }, error) : undefined;
  }
  const text = jsonTextOf(body);
  if (text.ok || text.message !== message) return undefined;
  return malformedJsonError(text, error);
}

/**
 * `app.notFound(conventionsNotFound(app))`: a request no route of `app` takes is 404 `No resource
 * exists at this path.`, or 405 with `Allow` when a route has the path with another method (OPTIONS:
 * 204 with `Allow`), as error documents through the primitives and `conventionsErrors()`, rather than
 * Hono's plain-text `404 Not Found` (RFC 9110 sections 15.5.5 and 15.5.6).
 */
export function conventionsNotFound(app: {
  readonly routes: readonly FrameworkRoute[];
}): (c: HonoContext) => Response {
  if (typeof app !== 'object' || app === null || !Array.isArray(app.routes)) {
    throw new TypeError('hono conventionsNotFound: app must be the Hono app whose routes are matched');
  }
  return function honoConventionsNotFound(c) {
    const answer = unmatched(app.routes, c.req.method, c.req.path);
    if ('error' in answer) throw answer.error;
    return c.body(null, 204, { allow: answer.options });
  };
}

/**
 * Declared routes registered on a Hono app (`app.on(method, path, handler)`), in the spirit of
 * `@hono/zod-openapi`'s `createRoute`, run on the context of `conventions(...)`: the library decodes
 * and checks the request as `createApp` does, the handler gets typed `ctx.params`, `ctx.query`,
 * `ctx.body` and `ctx.var.principal`, and its response becomes Hono's. `routes()` lists the declarations
 * for `openApiDocument`.
 */
export function describedRoutes(
  app: {
    on(method: string, path: string, handler: (c: HonoContext) => Promise<Response>): unknown;
  },
  options: DescribedRoutesOptions = {},
): DescribedRoutes {
  if (typeof app?.on !== 'function') {
    throw new TypeError('hono describedRoutes: pass the Hono app the routes go on');
  }
  return described(({ method, path, run }) => {
    app.on(method, path, async function honoDescribedRoute(c) {
      const ctx = CONTEXTS.get(c.req.raw);
      if (ctx === undefined) throw outsideConventions('hono');
      return toFetchResponse(await run(ctx, c.req.param() as Record<string, string>));
    });
  }, options);
}

/** Options of {@link mountApp}. */
export interface HonoMountOptions extends HonoClientAddressOption {
  /** The path the handler is registered under (`/api`), stripped before the app routes. */
  readonly prefix?: string;
}

/**
 * A whole rest-conventions app as a Hono handler:
 * `hono.all('/api/*', mountApp(app, { prefix: '/api' }))`. The app sees paths below the prefix and
 * gives its `Location` and links under it.
 */
export function mountApp(app: App, options: HonoMountOptions = {}): (c: HonoContext) => Promise<Response> {
  const prefix = mountPrefix(options.prefix, 'hono mountApp');
  const clientAddress = addressOf(options.clientAddress, 'hono mountApp', app.logger);
  return async function honoMountedApp(c) {
    const view = fromFetchRequest(c.req.raw, clientAddress(c), nodeIncoming(c)?.url);
    const inside = view.path.startsWith(prefix) ? view.path.slice(prefix.length) : view.path;
    return toFetchResponse(
      await app.handle({
        ...view,
        path: inside === '' ? '/' : inside,
        ...(prefix === '' ? {} : { mountPath: prefix }),
      }),
    );
  };
}
