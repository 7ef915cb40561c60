/**
 * The framework-free driver behind `rest-conventions/adapters/{express,fastify,koa,hono}`: runs
 * the library's middleware (its `before` and `after` hooks, or `(ctx, next)` wrappers) around a host
 * framework's own handling of a request, seen as a neutral {@link ApiResponse}. Each framework file
 * only translates its request into a {@link RequestView} and its response to and from an
 * `ApiResponse`; every decision is made here by the primitives themselves, and JSON:API 1.1's `ext`
 * and `profile` are negotiated as `createApp` negotiates them (see `docs/adapters.md`).
 */

import { jsonLineLogger } from '../app/app.js';
import { bodyBytesRead } from '../core/body.js';
import { composePipeline } from '../core/compose.js';
import { isPromise } from '../core/maybe-promise.js';
import { type RequestIdOptions, requestIdentity } from '../core/request-identity.js';
import { answerRequestTarget } from '../core/request-target.js';
import { renderError } from '../errors/render.js';
import { originForm } from '../http/request-target.js';
import type { ApiResponse, Context, HeaderBag, Logger, Middleware, RequestView } from '../http/types.js';
import { contextKey } from '../http/types.js';
import { malformedJsonError, takeJsonBody } from '../validation/json-text.js';
import { negotiatedJsonApi } from './jsonapi-negotiation.js';

/** Options shared by every framework's `conventions(...)` middleware. */
export interface ConventionsOptions {
  /** The primitives to run, outermost first (`securityHeaders()`, `rateLimit(...)`, ...). */
  readonly use: readonly Middleware[];
  /** Where server-side failures are logged (default: one JSON line on stderr). */
  readonly logger?: Logger;
  /** The request id header to read and echo (default `x-request-id`) and the generator of new ids. */
  readonly requestId?: RequestIdOptions;
}

/**
 * Runs the primitives around the framework's own handling of one request. `existing` is the context
 * an outer `conventions(...)` made for the same request (route-level primitives after app-level
 * ones share its principal, request id and body).
 */
export type ConventionsRunner = (
  request: RequestView,
  downstream: (ctx: Context) => Promise<ApiResponse>,
  toError?: (thrown: unknown) => unknown,
  existing?: Context,
) => Promise<ApiResponse>;

/** Validates the options once and returns the runner (a TypeError names a bad option). */
export function conventionsRunner(options: ConventionsOptions, framework: string): ConventionsRunner {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${framework} conventions: options must be an object with a \`use\` array`);
  }
  const { use } = options;
  if (!Array.isArray(use) || use.some((layer) => typeof layer !== 'function')) {
    throw new TypeError(`${framework} conventions: use must be an array of middleware functions`);
  }
  const logger = options.logger ?? jsonLineLogger;
  const identity = requestIdentity(options.requestId);
  // Each request's way on and error converter are kept in its own context (under this runner's own
  // keys, so a nested runner's do not replace them) rather than in WeakMaps keyed by the context: a
  // weak table written on every request made the collector keep far more of each request
  // (docs/benchmarks.md, "The Fastify driver").
  const DOWNSTREAM = contextKey<(ctx: Context) => Promise<ApiResponse>>(
    `${framework} conventions downstream`,
  );
  const CONVERTER = contextKey<(thrown: unknown) => unknown>(`${framework} conventions error converter`);
  const pipeline = composePipeline(
    use as readonly Middleware[],
    (ctx) => negotiatedJsonApi(ctx, ctx.get(DOWNSTREAM)!),
    (thrown, ctx) => renderError(ctx.get(CONVERTER)?.(thrown) ?? thrown, ctx),
  );
  return (request, downstream, toError, existing) => {
    // Nested inside an outer `conventions(...)`: the same context, so its principal, request id and
    // body (read through the outer's view) carry on to these primitives and back out.
    const ctx = existing ?? identity.contextOf(request, logger);
    ctx.set(DOWNSTREAM, downstream);
    if (toError !== undefined) ctx.set(CONVERTER, toError);
    // `X-Request-Id` and `Date` as `createApp` sends them, on every answer of these primitives.
    // A pipeline that answered synchronously costs no extra promise turn, as in `createApp`. The
    // target and Host are answered first, as `createApp` answers them (an outer runner did it).
    const answer = (existing === undefined ? answerRequestTarget(ctx) : undefined) ?? pipeline(ctx);
    return isPromise(answer)
      ? answer.then((response) => identity.stamp(response, ctx))
      : Promise.resolve(identity.stamp(answer, ctx));
  };
}

/** Fields of a request view that the framework knows. */
export interface RequestViewFields {
  readonly method: string;
  /**
   * The request target as the client sent it (`/books/7?x=1`, or absolute-form), relative to any
   * mount point.
   */
  readonly target: string;
  readonly headers: HeaderBag;
  readonly remoteAddress: string | undefined;
  readonly mountPath?: string;
  readonly body: () => AsyncIterable<Uint8Array>;
}

/** A neutral request view from what a framework knows about its request. */
export function requestView(fields: RequestViewFields): RequestView {
  const target = originForm(fields.target);
  const query = target.indexOf('?');
  const view: { -readonly [K in keyof RequestView]: RequestView[K] } = {
    method: fields.method,
    path: query === -1 ? target : target.slice(0, query),
    search: query === -1 ? '' : target.slice(query + 1),
    headers: fields.headers,
    remoteAddress: fields.remoteAddress,
    body: fields.body,
  };
  // Set only when mounted, rather than spread into the literal: a spread makes V8 build the object
  // through its slow runtime path on every request.
  if (fields.mountPath !== undefined && fields.mountPath !== '') view.mountPath = fields.mountPath;
  return view;
}

/**
 * A request body that remembers what the primitives read of it (an idempotency fingerprint, body
 * validation, a layer reading `ctx.request.body()` itself), so the framework's own body parser gets
 * the same bytes afterwards.
 */
export class RecordedBody {
  private chunks: Uint8Array[] | undefined;

  constructor(private readonly source: () => AsyncIterable<Uint8Array>) {}

  /**
   * Called as the primitives hand the request on (`downstream`): the first `conventions(...)` on a
   * context is the one whose view its primitives read through, also a nested one's, which shares the
   * outer one's context. Its recording is kept as this module's private state of the context.
   */
  attach(ctx: Context): void {
    if (ctx.get(RECORDING) === undefined) ctx.set(RECORDING, this);
  }

  /** The body for the request view: reads the source once, keeping each chunk. */
  readonly read = (): AsyncIterable<Uint8Array> => {
    const chunks: Uint8Array[] = [];
    this.chunks = chunks;
    const source = this.source;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const chunk of source()) {
          chunks.push(chunk);
          yield chunk;
        }
      },
    };
  };

  /**
   * The bytes the primitives read of the request on `ctx` (after {@link attach}): through the view of
   * the first `conventions(...)` on it, else what `readBody` kept; `undefined` when none did.
   */
  readBytes(ctx: Context): Uint8Array | undefined {
    const chunks = (ctx.get(RECORDING) ?? this).chunks;
    return chunks === undefined ? bodyBytesRead(ctx) : Buffer.concat(chunks);
  }
}

const RECORDING = contextKey<RecordedBody>('the body recording the context reads through');

/**
 * A route's headers from node's header map (`getHeaders()`, whose names node keeps lower-case, as
 * Express, Fastify and Koa hand it over) as neutral ones, lists joined, without the framing fields node
 * computes for the wire (`Content-Length`, `Transfer-Encoding`): the primitives see the
 * representation's own fields. `Set-Cookie` lines are kept apart, never joined.
 */
export function neutralHeaders(headers: Record<string, number | string | readonly string[] | undefined>): {
  headers: Record<string, string>;
  setCookie: readonly string[];
} {
  const neutral: Record<string, string> = {};
  let setCookie: readonly string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    if (name === 'set-cookie') setCookie = Array.isArray(value) ? value : [String(value)];
    else neutral[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { headers: neutral, setCookie };
}

const JSON_TYPE = /^application\/(?:[^;\s]*\+)?json\s*(?:;|$)/i;

/**
 * A body the primitives read, as the framework's body parsers would have left it: parsed JSON for a
 * JSON `Content-Type`, else the bytes. A JSON body that is not JSON text (RFC 8259) is refused as
 * those parsers refuse it, with the 400 `decodeJsonBody` gives (`malformed-json`): the route, which
 * finds the stream read, would otherwise get the bytes where it expects the parsed value. The parse
 * is the one the idempotency fingerprint made of the same bytes, when it made one.
 */
export function handedOnBody(ctx: Context, bytes: Uint8Array, contentType: string): unknown {
  if (!JSON_TYPE.test(contentType) || bytes.byteLength === 0) return Buffer.from(bytes);
  // `readBody` kept the same bytes; the fingerprint's parse is kept under that object, so it is taken
  // rather than made again.
  const text = takeJsonBody(ctx, bodyBytesRead(ctx) ?? bytes);
  if (!text.ok) throw malformedJsonError(text);
  return text.value;
}

/** A mount path: empty, or `/segment...` without a trailing slash. */
export function mountPrefix(prefix: string | undefined, where: string): string {
  if (prefix === undefined || prefix === '') return '';
  if (typeof prefix !== 'string' || !/^(?:\/[^/?#]+)+$/.test(prefix)) {
    throw new TypeError(`${where}: prefix must look like /api (no trailing slash), got ${String(prefix)}`);
  }
  return prefix;
}
