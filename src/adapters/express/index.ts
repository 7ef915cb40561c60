/**
 * `rest-conventions/express`: the primitives as Express 5 middleware on your own routes
 * (`conventions`, `conventionsErrors`), and a whole rest-conventions app mounted under a path
 * (`mountApp`). Express is an optional peer dependency, imported for its types only.
 * See `docs/adapters.md`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { App } from '../../core/app.js';
import { bodyBytes } from '../../core/response.js';
import type { ApiResponse, Context } from '../../core/types.js';
import { renderError } from '../../errors/render.js';
import {
  type ConventionsOptions,
  conventionsRunner,
  handedOnBody,
  neutralHeaders,
  RecordedBody,
} from '../conventions.js';
import { writeFallback500 } from '../fallback.js';
import { writeNodeResponse } from '../node.js';
import {
  type ClientAddressOption,
  clientAddressOption,
  incomingView,
  replaceHeaders,
  wireBody,
} from '../node-host.js';

export type { ConventionsOptions } from '../conventions.js';

/** Options of the Express {@link conventions} middleware. */
export interface ExpressConventionsOptions extends ConventionsOptions, ClientAddressOption<Request> {}

const CONTEXTS = new WeakMap<IncomingMessage, Context>();

/** What the route handler sent, caught before it reaches the socket. */
interface Captured {
  readonly response: ApiResponse;
  readonly setCookie: readonly string[];
}

/**
 * Express has no after-phase, so the response the route writes (`res.send`, `res.json`, `res.end`)
 * is caught at `res.end`, given to the primitives as an `ApiResponse`, and what they return is
 * written instead (the approach of `on-headers`/`compression`: patch the methods of this one
 * response, restore them before writing). The route's body is buffered, whole.
 */
function capture(res: ServerResponse): Promise<Captured> {
  const { write, end, writeHead } = res;
  const chunks: Buffer[] = [];
  const toBuffer = (chunk: unknown, encoding: unknown): Buffer | undefined => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
    if (typeof chunk === 'string')
      return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    return Buffer.from(chunk as Uint8Array);
  };
  return new Promise((resolve) => {
    res.writeHead = function capturedWriteHead(this: ServerResponse, status: number, ...rest: unknown[]) {
      res.statusCode = status;
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
      if (Array.isArray(headers)) {
        for (let i = 0; i + 1 < headers.length; i += 2)
          res.setHeader(String(headers[i]), headers[i + 1] as string);
      } else if (headers !== undefined) {
        for (const [name, value] of Object.entries(headers as Record<string, string>))
          res.setHeader(name, value);
      }
      return res;
    } as typeof res.writeHead;
    res.write = function capturedWrite(chunk: unknown, encoding?: unknown, callback?: unknown) {
      const bytes = toBuffer(chunk, encoding);
      if (bytes !== undefined) chunks.push(bytes);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    } as typeof res.write;
    res.end = function capturedEnd(chunk?: unknown, encoding?: unknown, callback?: unknown) {
      const bytes = toBuffer(chunk, encoding);
      if (bytes !== undefined) chunks.push(bytes);
      res.writeHead = writeHead;
      res.write = write;
      res.end = end;
      const { headers, setCookie } = neutralHeaders(res.getHeaders());
      // Node computes these for the wire; the primitives see the representation's own fields.
      delete headers['content-length'];
      delete headers['transfer-encoding'];
      resolve({ response: { status: res.statusCode, headers, raw: Buffer.concat(chunks) }, setCookie });
      const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function');
      if (typeof done === 'function') res.once('finish', done as () => void);
      return res;
    } as typeof res.end;
  });
}

/**
 * The primitives as one Express middleware, before your routes:
 * `app.use(conventions({ use: [securityHeaders(), rateLimit({...}), idempotency({...})] }))`.
 * A body read by a primitive (an idempotency fingerprint) is handed on as `req.body` (parsed JSON
 * for a JSON `Content-Type`, else the bytes), and Express's body parsers, finding the stream read,
 * leave it there.
 */
export function conventions(options: ExpressConventionsOptions): RequestHandler {
  const run = conventionsRunner(options, 'express');
  const clientAddress = clientAddressOption(options.clientAddress, 'express conventions');
  return function expressConventions(req: Request, res: Response, next: NextFunction) {
    const outer = CONTEXTS.get(req);
    const body = new RecordedBody(() => req);
    const view = incomingView(req, req.originalUrl, clientAddress?.(req) ?? req.socket.remoteAddress, body);
    let captured: Captured | undefined;
    const downstream = (ctx: Context): Promise<ApiResponse> => {
      CONTEXTS.set(req, ctx);
      const read = body.bytes();
      if (read !== undefined && req.body === undefined)
        req.body = handedOnBody(read, req.headers['content-type'] ?? '');
      const pending = capture(res);
      next();
      return pending.then((caught) => {
        captured = caught;
        return caught.response;
      });
    };
    run(view, downstream, undefined, outer).then(
      (response) => {
        const bytes = wireBody(response, req.method);
        replaceHeaders(res, response, captured?.setCookie ?? []);
        res.statusCode = response.status;
        res.end(bytes);
      },
      () => writeFallback500(res),
    );
  };
}

/**
 * The rest-conventions context of a request that went through {@link conventions}: its `principal`
 * (after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(req: Request): Context | undefined {
  return CONTEXTS.get(req);
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
    const response = renderError(error, ctx);
    replaceHeaders(res, response, []);
    res.statusCode = response.status;
    res.end(bodyBytes(response));
  };
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
