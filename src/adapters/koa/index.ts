/**
 * `rest-conventions/adapters/koa`: the primitives as Koa 3 middleware in the onion (`conventions`), and a
 * whole rest-conventions app mounted under a path (`mountApp`). Koa is an optional peer dependency,
 * imported for its types only. See `docs/adapters.md`.
 */
import { Readable } from 'node:stream';
import type { Context as KoaContext, Middleware as KoaMiddleware, Next } from 'koa';
import type { App } from '../../app/app.js';
import { bodyBytes, collectBody } from '../../core/response.js';
import { originForm } from '../../http/request-target.js';
import type { ApiResponse, Context, Params, Principal } from '../../http/types.js';
import { callerCheck, type RequireCallerOptions } from '../caller.js';
import {
  type ConventionsOptions,
  conventionsRunner,
  handedOnBody,
  mountPrefix,
  neutralHeaders,
  RecordedBody,
} from '../conventions.js';
import {
  type DescribedRoutes,
  type DescribedRoutesOptions,
  describedRoutes as described,
  outsideConventions,
} from '../described.js';
import { writeFallback500 } from '../fallback.js';
import { frameworkBody, fromBodyParser } from '../framework-body.js';
import { writeNodeResponse } from '../node.js';
import { type ClientAddressOption, clientAddressOption, incomingView, wireBody } from '../node-host.js';
import { unmatchedMethods } from '../unmatched.js';
import { quietClientDisconnects } from './client-disconnects.js';

export type { RequireCallerOptions } from '../caller.js';
export { isClientDisconnect } from '../client-disconnect.js';
export type { ConventionsOptions } from '../conventions.js';
export type { DescribedRoutes, DescribedRoutesOptions } from '../described.js';
export type { ClientAddressOption } from '../node-host.js';

/** Options of the Koa {@link conventions} middleware. */
export interface KoaConventionsOptions extends ConventionsOptions, ClientAddressOption<KoaContext> {}

/** Koa's body after the inner middleware ran, as bytes (Koa's own rules: objects as JSON). */
async function koaBody(body: unknown): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof Readable) return collectBody({ status: 200, headers: {}, raw: body });
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  if (body instanceof ReadableStream || body instanceof Response) {
    return new Uint8Array(await new Response(body instanceof Response ? body.body : body).arrayBuffer());
  }
  return Buffer.from(JSON.stringify(body));
}

/**
 * The primitives as one Koa middleware, outside your router:
 * `app.use(conventions({ use: [securityHeaders(), rateLimit({...})] }))`. Errors thrown inside
 * (`ctx.throw`, http-errors, `ApiError`) become error documents at this layer. A body read by a
 * primitive is handed on as `ctx.request.body` (parsed JSON for a JSON `Content-Type`, else bytes);
 * a JSON body that is not JSON text is refused (400 `malformed-json`), as `@koa/bodyparser` would.
 */
export function conventions(options: KoaConventionsOptions): KoaMiddleware {
  const run = conventionsRunner(options, 'koa');
  const clientAddress = clientAddressOption(options.clientAddress, 'koa conventions');
  return async function koaConventions(ctx: KoaContext, next: Next) {
    quietClientDisconnects(ctx.app);
    const { req } = ctx;
    const outer = CONTEXTS.get(ctx);
    const body = new RecordedBody(frameworkBody(req, () => (ctx.request as { body?: unknown }).body));
    const view = incomingView(req, ctx.originalUrl, clientAddress?.(ctx) ?? req.socket.remoteAddress, body);
    let setCookie: readonly string[] = [];
    const downstream = async (inner: Context): Promise<ApiResponse> => {
      CONTEXTS.set(ctx, inner);
      body.attach(inner);
      const request = ctx.request as { body?: unknown };
      // Nested, the outer `conventions(...)` has handed on what its primitives read already.
      const read = outer !== undefined && request.body !== undefined ? undefined : body.readBytes(inner);
      if (read !== undefined) request.body = handedOnBody(inner, read, ctx.get('content-type'));
      await next();
      const raw = await koaBody(ctx.body);
      const caught = neutralHeaders(ctx.response.headers);
      setCookie = caught.setCookie;
      return { status: ctx.status, headers: caught.headers, ...(raw === undefined ? {} : { raw }) };
    };
    const response = await run(view, downstream, fromKoa, outer);
    const bytes = wireBody(response, ctx.method);
    ctx.body = bytes === undefined ? null : Buffer.from(bytes);
    ctx.status = response.status;
    for (const name of Object.keys(ctx.response.headers)) ctx.remove(name);
    ctx.set(response.headers);
    if (setCookie.length > 0) ctx.set('set-cookie', [...setCookie]);
  };
}

const CONTEXTS = new WeakMap<KoaContext, Context>();

/** A body parser's refusal (`@koa/bodyparser`, `koa-body`) as the core's document; else as thrown. */
function fromKoa(thrown: unknown): unknown {
  return fromBodyParser(thrown) ?? thrown;
}

/**
 * The rest-conventions context of a request inside {@link conventions}: its `var` (what
 * its layers added: `var.principal` after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(ctx: KoaContext): Context | undefined {
  return CONTEXTS.get(ctx);
}

/** What {@link requireCaller} gives the middleware after it: `ctx.state.principal`. */
export interface CallerState {
  principal: Principal;
}

/**
 * Route middleware inside `conventions(...)`: `router.post('/orders', requireCaller(), (ctx) =>
 * ctx.state.principal.sub)`. Its state generic types `ctx.state.principal` for what runs after it
 * (`@koa/router` infers it); an anonymous request is the 401 `requireAuth()` answers, with
 * `WWW-Authenticate` (RFC 6750 section 3.1).
 */
export function requireCaller(options?: RequireCallerOptions): KoaMiddleware<CallerState> {
  const callerOf = callerCheck(options, 'koa');
  return function koaRequireCaller(ctx, next) {
    ctx.state.principal = callerOf(CONTEXTS.get(ctx));
    return next();
  };
}

/**
 * Declared routes registered on a `@koa/router` (`router.get(path, handler)`, ...), run on the context
 * of `conventions(...)` (outside the router): the library decodes and checks the request as
 * `createApp` does, the handler gets typed `ctx.params`, `ctx.query`, `ctx.body` and `ctx.var.principal`,
 * and its response becomes Koa's. `routes()` lists the declarations for `openApiDocument`.
 */
export function describedRoutes(router: object, options: DescribedRoutesOptions = {}): DescribedRoutes {
  if (
    typeof router !== 'object' ||
    router === null ||
    typeof (router as KoaRouterLike).match !== 'function'
  ) {
    throw new TypeError('koa describedRoutes: pass the router the routes go on (@koa/router)');
  }
  const methods = router as Record<string, (path: string, handler: KoaMiddleware) => unknown>;
  return described(({ method, path, run }) => {
    methods[method.toLowerCase()]!.call(router, path, async function koaDescribedRoute(ctx: KoaContext) {
      const inner = CONTEXTS.get(ctx);
      if (inner === undefined) throw outsideConventions('koa');
      const response = await run(inner, (ctx as { params?: Params }).params ?? {});
      const bytes = bodyBytes(response);
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = bytes === undefined ? null : Buffer.from(bytes);
    });
  }, options);
}

/** What `conventionsNotFound` reads of a router: `@koa/router`'s `match(path, method)`. */
export interface KoaRouterLike {
  match(path: string, method: string): { readonly path: readonly { readonly methods: readonly string[] }[] };
}

/**
 * Last in the onion, after your routers: `app.use(conventionsNotFound({ routers: [router] }))`. A
 * request nothing answered is 404 `No resource exists at this path.`, or 405 with `Allow` when one of
 * the routers has the path with another method (OPTIONS: 204 with `Allow`), as error documents through
 * the primitives, rather than Koa's plain-text `Not Found` (RFC 9110 sections 15.5.5 and 15.5.6).
 */
export function conventionsNotFound(
  options: { readonly routers?: readonly KoaRouterLike[] } = {},
): KoaMiddleware {
  const routers = options.routers ?? [];
  if (!Array.isArray(routers) || routers.some((router) => typeof router?.match !== 'function')) {
    throw new TypeError(
      'koa conventionsNotFound: routers must be routers with match(path, method), as @koa/router',
    );
  }
  return async function koaConventionsNotFound(ctx: KoaContext) {
    const methods = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) {
        for (const method of layer.methods) methods.add(method.toUpperCase());
      }
    }
    const answer = unmatchedMethods(methods, ctx.method);
    if ('error' in answer) throw answer.error;
    ctx.status = 204;
    ctx.set('allow', answer.options);
  };
}

/** Options of {@link mountApp}. */
export interface KoaMountOptions extends ClientAddressOption<KoaContext> {
  /** The mount path (`/api`); requests outside it go on to the next middleware. Default: `''`. */
  readonly prefix?: string;
}

/**
 * A whole rest-conventions app as Koa middleware: `server.use(mountApp(app, { prefix: '/api' }))`.
 * The app answers every request under the prefix (writing the response itself) and gives its
 * `Location` and links under the prefix.
 */
export function mountApp(app: App, options: KoaMountOptions = {}): KoaMiddleware {
  const prefix = mountPrefix(options.prefix, 'koa mountApp');
  const clientAddress = clientAddressOption(options.clientAddress, 'koa mountApp');
  return async function koaMountedApp(ctx: KoaContext, next: Next) {
    quietClientDisconnects(ctx.app);
    const url = originForm(ctx.url);
    if (prefix !== '' && !(url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`))) {
      return next();
    }
    const target = url.slice(prefix.length);
    const { req, res } = ctx;
    const view = incomingView(
      req,
      target === '' || target.startsWith('?') ? `/${target}` : target,
      clientAddress?.(ctx) ?? req.socket.remoteAddress,
      () => req,
      prefix,
    );
    ctx.respond = false;
    try {
      await writeNodeResponse(res, await app.handle(view), req);
    } catch {
      writeFallback500(res);
    }
  };
}
