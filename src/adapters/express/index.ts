/**
 * `rest-conventions/adapters/express`: the primitives as Express 5 middleware on your own routes
 * (`conventions`, `conventionsErrors`), and a whole rest-conventions app mounted under a path
 * (`mountApp`). Express is an optional peer dependency, imported for its types only.
 * See `docs/adapters.md`.
 */

import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { App } from '../../app/app.js';
import { codedError } from '../../errors/coded-error.js';
import { renderError } from '../../errors/render.js';
import type { ApiResponse, Context } from '../../http/types.js';
import { type ConventionsOptions, conventionsRunner, handedOnBody, RecordedBody } from '../conventions.js';
import { writeFallback500 } from '../fallback.js';
import { frameworkBody, fromBodyParser } from '../framework-body.js';
import { writeNodeResponse } from '../node.js';
import { type ClientAddressOption, clientAddressOption, incomingView, wireBody } from '../node-host.js';

import { type Captured, capture } from './capture.js';

export type { ConventionsOptions } from '../conventions.js';
export type { DescribedRoutes, DescribedRoutesOptions } from '../described.js';
export type { ClientAddressOption } from '../node-host.js';

import { CONTEXTS, sendResponse } from './context.js';

export type { RequireCallerOptions } from '../caller.js';
export { type CallerGuard, type CallerLocals, requireCaller } from './caller.js';
export { conventionsContext } from './context.js';
export { describedRoutes, type ExpressRouterLike } from './described.js';
export { conventionsNotFound } from './not-found.js';

/** Options of the Express {@link conventions} middleware. */
export interface ExpressConventionsOptions extends ConventionsOptions, ClientAddressOption<Request> {}

/**
 * Writes the primitives' answer over what the response holds, touching only the headers that
 * differ: the route's `Set-Cookie` lines stay when the route ran (`keepCookies`), else go.
 */
function writeAnswer(
  res: ServerResponse,
  response: ApiResponse,
  bytes: Uint8Array | undefined,
  keepCookies: boolean,
): void {
  const { headers } = response;
  for (const name of res.getHeaderNames()) {
    if (name === 'set-cookie') {
      if (!keepCookies) res.removeHeader(name);
      continue;
    }
    const value = headers[name];
    if (value === undefined) res.removeHeader(name);
    else if (res.getHeader(name) !== value) res.setHeader(name, value);
  }
  for (const name in headers) {
    if (name === 'set-cookie' ? keepCookies : res.hasHeader(name)) continue;
    res.setHeader(name, headers[name]!);
  }
  res.statusCode = response.status;
  res.end(bytes);
}

/**
 * The primitives as one Express middleware, before your routes:
 * `app.use(conventions({ use: [securityHeaders(), rateLimit({...}), idempotency({...})] }))`.
 * A body read by a primitive (an idempotency fingerprint) is handed on as `req.body` (parsed JSON
 * for a JSON `Content-Type`, else the bytes), and Express's body parsers, finding the stream read,
 * leave it there; a JSON body that is not JSON text is refused (400 `malformed-json`) as they would.
 */
export function conventions(options: ExpressConventionsOptions): RequestHandler {
  const run = conventionsRunner(options, 'express');
  const clientAddress = clientAddressOption(options.clientAddress, 'express conventions');
  return function expressConventions(req: Request, res: Response, next: NextFunction) {
    const outer = CONTEXTS.get(req);
    const body = new RecordedBody(frameworkBody(req, () => req.body));
    const view = incomingView(req, req.originalUrl, clientAddress?.(req) ?? req.socket.remoteAddress, body);
    let captured: Captured | undefined;
    const downstream = (ctx: Context): Promise<ApiResponse> => {
      CONTEXTS.set(req, ctx);
      body.attach(ctx);
      const read = body.readBytes(ctx);
      if (read !== undefined && req.body === undefined) {
        try {
          req.body = handedOnBody(ctx, read, req.headers['content-type'] ?? '');
        } catch (error) {
          // Malformed JSON: refused before the route, as Express's JSON parser would.
          return Promise.reject(error);
        }
      }
      const pending = capture(res);
      next();
      return pending.then((caught) => {
        captured = caught;
        return caught.response;
      });
    };
    run(view, downstream, undefined, outer).then(
      (response) =>
        writeAnswer(res, response, wireBody(response, req.method), (captured?.setCookie.length ?? 0) > 0),
      () => writeFallback500(res),
    );
  };
}

/**
 * The error handler, after your routes: anything thrown or passed to `next(error)` (an `ApiError`,
 * an http-errors error from Express or its body parsers) becomes a JSON:API error document, or
 * problem+json when the client prefers it (see `docs/errors.md`); a 5xx is logged, never shown.
 */
export function conventionsErrors(): ErrorRequestHandler {
  return function expressConventionsErrors(error: unknown, req: Request, res: Response, next: NextFunction) {
    const ctx = CONTEXTS.get(req);
    if (ctx === undefined || res.headersSent) {
      next(error);
      return;
    }
    sendResponse(res, renderError(fromExpress(error), ctx));
  };
}

/**
 * Express's router refuses a path parameter that is not valid percent-encoding (`/books/%zz`) by
 * throwing a `URIError` with `status: 400`, which is not an http-errors error: it is the client's
 * mistake, answered 400 like the core router's `invalid-path`, not 500.
 */
function fromExpress(error: unknown): unknown {
  const parser = fromBodyParser(error);
  if (parser !== undefined) return parser;
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    return codedError(400, 'invalid-path', {
      detail: 'A path parameter is not valid percent-encoding.',
      cause: error,
    });
  }
  return error;
}

/** Options of {@link mountApp}. */
export interface MountOptions extends ClientAddressOption<Request> {}

/**
 * A whole rest-conventions app as an Express handler: `server.use('/api', mountApp(app))`. The app
 * sees paths below the mount point and gives its `Location` and links under it (`req.baseUrl`).
 */
export function mountApp(app: App, options: MountOptions = {}): RequestHandler {
  const clientAddress = clientAddressOption(options.clientAddress, 'express mountApp');
  return function expressMountedApp(req: Request, res: Response) {
    // Express has already set its own headers (`X-Powered-By`): the app's response is the whole answer.
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    const view = incomingView(
      req,
      req.url,
      clientAddress?.(req) ?? req.socket.remoteAddress,
      () => req,
      req.baseUrl,
    );
    app.handle(view).then(
      (response) => writeNodeResponse(res, response, req).catch(() => writeFallback500(res)),
      () => writeFallback500(res),
    );
  };
}
