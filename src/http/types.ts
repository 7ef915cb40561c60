/**
 * The neutral request/response model every primitive works on. Nothing here knows about a framework:
 * adapters (`src/adapters/*`) translate a framework's request into a {@link RequestView} and write an
 * {@link ApiResponse} back.
 */

/** Route parameters as the router matched them: percent-decoded strings, by name. */
export type Params = Readonly<Record<string, string>>;

/**
 * A route's decoded inputs by name (its path parameters or its query): a codec's output where the
 * route declares one, the string otherwise. What a layer sees when it does not say which route it is
 * on (see {@link Context}).
 */
export type Inputs = Readonly<Record<string, unknown>>;

/** Case-insensitive read access to request headers. Names passed to `get` are lower-case. */
export interface HeaderBag {
  /** The field value, with repeated lines joined by `", "` (RFC 9110 section 5.3), or `undefined`. */
  get(name: string): string | undefined;
}

/** An authenticated caller, produced by a token verifier. */
export interface Principal {
  /** The subject: the user id this request acts for. */
  readonly sub: string;
  /** Granted scopes (RFC 8693 `scope` claim, space-separated in the token). */
  readonly scopes: ReadonlySet<string>;
  /** All verified claims, for application rules. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What an adapter hands to the core: the request, read lazily. */
export interface RequestView {
  /** Upper-case method. */
  readonly method: string;
  /** Raw (percent-encoded) path, without the query string. */
  readonly path: string;
  /** Raw query string without the leading `?` (`""` when absent). */
  readonly search: string;
  readonly headers: HeaderBag;
  /** The peer's address as the socket reports it (never taken from a header). */
  readonly remoteAddress: string | undefined;
  /**
   * Where the app is mounted inside a host server (`/api`), when it is: `path` is then relative to it,
   * and the app's `Location` and JSON:API `links` are given under it (see `docs/adapters.md`).
   */
  readonly mountPath?: string;
  /**
   * The body: a stream of chunks, or the promise of its whole bytes where the runtime reads a body
   * of declared `Content-Length` natively (a fetch `Request`'s `arrayBuffer()`). Called at most once;
   * the core reads it only when a route asks for the body, so GET requests never touch it, and
   * refuses a declared length over the route's limit before calling it.
   */
  readonly body: () => AsyncIterable<Uint8Array> | Promise<Uint8Array>;
}

/**
 * The values layers add to a request, by name: `ctx.var.principal` after `requireAuth()`. Every
 * layer writes what it adds here, and a declared route's handler sees `ctx.var` typed from its
 * layers (see docs/core.md). The names the library's own layers use are listed, optional; an
 * application adds its own names to this interface (declaration merging) for app-wide layers, or
 * declares them as its middleware's `Adds` for route layers.
 */
export interface Variables {
  /** The authenticated caller (`authenticate()`; certain after `requireAuth()` or `auth`). */
  principal?: Principal;
  /** The entity `conditional({ load })` loaded for this request (typed from `load` at the route). */
  entity?: unknown;
  /** The API version negotiated by `versioning(...)`. */
  apiVersion?: number;
}

/** `ctx.var` as a layer sees it: the known names, and any other a layer adds (unknown until read). */
export type LayerVariables = Variables & { [name: string]: unknown };

/**
 * A typed key for a layer's private per-request state (see {@link Context.get}). What a layer hands
 * to the handler goes in {@link Context.var} instead.
 */
export interface ContextKey<T> {
  readonly description: string;
  /** Phantom field: carries `T` for the type checker only. */
  readonly __type?: T;
}

/** Create a key for a layer's private state ({@link Context.set} / {@link Context.get}). */
export function contextKey<T>(description: string): ContextKey<T> {
  return Object.freeze({ description }) as ContextKey<T>;
}

/** What a response body may be. JSON values are serialized once, as late as possible. */
export type RawBody = Uint8Array | string | AsyncIterable<Uint8Array>;

/** The neutral response every handler and middleware returns. */
export interface ApiResponse {
  status: number;
  /** Lower-case header names. Multi-valued fields are stored comma-joined (RFC 9110 section 5.3). */
  headers: Record<string, string>;
  /**
   * Fields sent as one field line per value, for fields whose values cannot be joined with commas:
   * `Set-Cookie` (RFC 9110 section 5.3, RFC 6265 section 3). Lower-case names; sent after, and
   * instead of, a `headers` entry of the same name. Usually absent (see `appendFieldLine`).
   */
  fieldLines?: Record<string, string[]>;
  /** A JSON document to serialize, unless `raw` is set. */
  json?: unknown;
  /** Bytes, text or a stream to send as they are. Takes precedence over `json`. */
  raw?: RawBody;
}

/** The rest of the pipeline, as seen by a middleware. Calling it twice is an error. */
export type Next = () => Promise<ApiResponse>;

/** The function half of a {@link Middleware}. */
export type MiddlewareFunction<C extends Context = Context> = (ctx: C, next: Next) => Promise<ApiResponse>;

/** The type-only half of a {@link Middleware}: what it adds to `ctx.var`. */
export interface LayerAdds<Adds extends object> {
  /** Phantom, for the type checker only: what this middleware adds to the context. */
  __adds?(adds: Adds): void;
}

/**
 * One step of the pipeline. Returns the response (its own, or the one `next()` produced).
 *
 * `Adds` names the `ctx.var` members the middleware guarantees to the layers and handler after it
 * (`requireAuth()` adds `{ principal: Principal }`); a declared route's handler sees `ctx.var` typed
 * as the intersection of its layers' `Adds`, without a type argument. It is a type only: the
 * middleware writes the values into `ctx.var` at run time.
 *
 * An intersection rather than one interface on purpose: TypeScript defers a generic call that
 * returns a function type while it infers the enclosing call, and its result would then be left out
 * of `use`'s inference when a factory like `conditional({ load })` is written inline in a route; an
 * intersection is not a function type to that check, so inline layers are typed like bound ones.
 */
export type Middleware<C extends Context = Context, Adds extends object = {}> = MiddlewareFunction<C> &
  LayerAdds<Adds>;

/** Produces the response for a matched route. May throw an `ApiError` (or anything: it becomes a 500). */
export type Handler<C extends Context = Context> = (ctx: C) => Promise<ApiResponse> | ApiResponse;

/**
 * Logs server-side failures; the default writes one JSON line to stderr. The call shape is pino's
 * (and bunyan's): fields first, then the message, so a pino logger is passed as it is
 * (`createApp({ logger: pino() })`). Errors go under `err`, pino's key for serialized errors.
 */
export interface Logger {
  error(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  info?(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

/** What every layer may read about the matched route (see `RouteInfo` for the whole declaration). */
export interface RouteFacts {
  /** The registered pattern, e.g. `/books/{id}`: its trailing slash (or none) is canonical. */
  readonly pattern: string;
  /** The largest request body any layer reads for this route, in bytes. */
  readonly bodyLimit: number;
  /** The route's own response media types, when it declares them (`produces`). */
  readonly produces?: readonly string[] | undefined;
  /** The JSON:API 1.1 profiles (URIs) its JSON:API answers apply, when it declares any. */
  readonly profiles?: readonly string[] | undefined;
}

/**
 * The per-request context passed through the pipeline.
 *
 * Request data moves through it on two channels only: `var`, what a layer hands to the layers after
 * it and to the handler, by name; and {@link Context.get}/{@link Context.set} under a
 * {@link ContextKey}, a layer's private state, which nothing else reads. A route's decoded inputs
 * live in one place, `params`, `query` and `body`, which the layers and the handler read alike.
 *
 * `P` and `Q` are the route's decoded `params` and `query`. Left out, a layer sees them as values of
 * unknown type: a layer that reads one says what it expects (`Context<{ readonly id: number }>`), and a
 * declared route accepts the layer only if its codecs decode to that.
 */
export interface Context<P extends Inputs = Inputs, Q extends Inputs = Inputs> {
  readonly request: RequestView;
  /**
   * The route's path parameters: set by the router once a route matched (strings), then decoded once
   * by the route's `params` codecs, before its middleware runs; layers and handler see the same values.
   */
  params: P;
  /** The request id echoed in `X-Request-Id` and attached to every log line. */
  readonly requestId: string;
  /** The pattern of the matched route (e.g. `/books/{id}`), once matched. */
  routePattern: string | undefined;
  /** What the matched route declares (its body limit, media types, ...), once matched. */
  route?: RouteFacts | undefined;
  /**
   * The decoded request body of a route that declares one, set once, after its middleware and just
   * before its handler runs (so a precondition or an idempotency replay answers before a body error).
   */
  body?: unknown;
  /**
   * What the layers before this point added to the request, by name (`principal`, `entity`,
   * `apiVersion`, an `ownedResource`'s record, ...): the one place a layer hands data on.
   */
  readonly var: LayerVariables;
  /**
   * The query: each name's last value as a string, or, on a declared route with a `query`, the
   * parameters its codecs decoded, set once before its middleware runs (see `queryAll` for the raw
   * values).
   */
  query: Q;
  /** All raw values of a query parameter, in order, whatever the route decoded. */
  queryAll(name: string): string[];
  /** A layer's private per-request state under typed keys (data for the handler goes in `var`). */
  get<T>(key: ContextKey<T>): T | undefined;
  set<T>(key: ContextKey<T>, value: T): void;
  readonly logger: Logger;
}
