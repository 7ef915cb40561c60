import type * as t from 'io-ts';
import type { ApiResponse, Context, Middleware, Principal, RouteFacts, Variables } from '../http/types.js';
import type { OperationContract } from './contract.js';
import type { DocumentKind, ResourceBody } from './resource-bodies.js';
import type { ResponseLink } from './response-links.js';
import type { ParamsOf } from './route-pattern.js';
import type {
  AnyCodec,
  AnySchema,
  ListedCodecs,
  OutputOf,
  OutputOrText,
  SchemasOf,
  StandardSchemaV1,
} from './route-schemas.js';

export type { DocumentKind, ResourceBody, ResourceSchema } from './resource-bodies.js';
export type { AnyCodec, AnySchema, ListedCodecs, OutputOf } from './route-schemas.js';

/** Codecs for some or all of a pattern's `{params}`, by name; the others stay strings. */
export type ParamCodecs<P extends string> = { readonly [K in keyof ParamsOf<P>]?: AnySchema };

/** Codecs for the query parameters a route takes, by name (`author`, `page[size]`, ...). */
export type QueryCodecs = Readonly<Record<string, AnySchema>>;

/**
 * The body a route takes: its attributes' codec (use `strictObject`), and the JSON:API resource type
 * a resource document (`application/vnd.api+json`) must name in `data.type`. With `id`, the body
 * updates the resource whose id is that path parameter: a JSON:API document must carry it as
 * `data.id` (see `decodeJsonBody`).
 */
export interface BodySpec<A, P extends string = string> {
  readonly codec: t.Type<A, unknown, unknown> | t.Type<A, A, unknown> | StandardSchemaV1<unknown, A>;
  readonly type: string;
  readonly id?: keyof ParamsOf<P> & string;
  /** Example attributes, shown in the API description (they must decode with `codec`). */
  readonly example?: A;
}

/** One documented response of a route. */
export interface ResponseSpec {
  readonly description: string;
  /** A codec (or Standard Schema validator) of the body, typed resources, or the kind of document it is. */
  readonly body?: AnySchema | DocumentKind | ResourceBody;
  /**
   * Response header fields the route sets, with what they mean (`required`: on every such response;
   * `schema`: a JSON Schema of the value, a string by default).
   */
  readonly headers?: Readonly<
    Record<
      string,
      {
        readonly description: string;
        readonly required?: boolean;
        readonly schema?: { readonly [keyword: string]: unknown };
      }
    >
  >;
  /** An example body, shown in the API description (it must match the body's schema). */
  readonly example?: unknown;
  /**
   * Links this response carries, by relation name ({@link linkTo}): written into the document's
   * top-level `links` and described as OpenAPI Link Objects (docs/envelope.md, "Declared links").
   */
  readonly links?: Readonly<Record<string, ResponseLink>>;
}

/** A documented response as `app.routes()` lists it: a Standard Schema validator as its io-ts codec. */
export interface ListedResponseSpec extends Omit<ResponseSpec, 'body'> {
  readonly body?: AnyCodec | DocumentKind | ResourceBody<AnyCodec>;
}

/** Who may call a route: anyone, any authenticated caller, or a caller holding every listed scope. */
export type RouteAuth = 'none' | 'principal' | { readonly scopes: readonly string[] };

/**
 * What a deprecated route announces: the options of the `deprecation` middleware (docs/deprecation.md),
 * which the route's `deprecated` field builds, as its `auth` builds `requireAuth`.
 */
export interface RouteDeprecation {
  /** When it was (or will be) deprecated (RFC 9745 `Deprecation`): a `Date` or an ISO 8601 string. */
  readonly since: Date | string;
  /** When it stops being served (RFC 8594 `Sunset`); not before `since`. */
  readonly sunset?: Date | string;
  /** Absolute URL of the human-readable deprecation notice (`Link: <...>; rel="deprecation"`). */
  readonly link?: string;
  /** What replaces it (`rel="successor-version"`): an absolute URL, or a path whose `{params}` come from the route. */
  readonly successor?: string;
  /** Answer 410 Gone from the sunset on, instead of serving (default `false`; needs `sunset`). */
  readonly goneAfterSunset?: boolean;
}

/** What the declared `auth` guarantees the handler. */
export type AuthVariables<A> = A extends 'principal' | { readonly scopes: readonly string[] }
  ? { readonly principal: Principal }
  : {};

/** `ctx.params` after decoding: a codec's output where one is declared, the string otherwise. */
export type DecodedParams<P extends string, PC> = {
  readonly [K in keyof ParamsOf<P>]: K extends keyof PC ? OutputOrText<PC[K]> : string;
};

/** `ctx.query` after decoding: each declared parameter, absent when not sent. Undeclared: raw strings. */
export type DecodedQuery<QC> = [QC] extends [undefined]
  ? Readonly<Record<string, string>>
  : { readonly [K in keyof QC]?: OutputOf<QC[K]> };

/**
 * The context a declared route's middleware sees: its `params` and `query` as the route's codecs
 * decoded them (they are decoded once, before the route's middleware runs), `ctx.var` as any layer's.
 * A layer that reads an input says so in its type (`Context<{ readonly id: number }>`), and the
 * route accepts it only if its codecs decode to that.
 */
export type LayerContext<P extends string, PC, QC> = [P] extends [never]
  ? // A generic layer written inline in `use` (`conditional({ ... })`) is inferred before the route's
    // own types are: TypeScript gives it the route as `never`. It is then typed as on any route.
    Context
  : Context<DecodedParams<P, PC>, DecodedQuery<QC>>;

/** What one middleware adds to `ctx.var` (its `Adds`); nothing for a middleware that declares none. */
type AddsOf<M> = M extends { __adds?(adds: infer A): void } ? (unknown extends A ? {} : A) : {};
type UnionToIntersection<U> = (U extends unknown ? (each: U) => void : never) extends (all: infer I) => void
  ? I
  : never;
/**
 * What a route's layers add to `ctx.var`: the intersection of each one's `Adds`, in any order
 * (`[requireAuth(), book]` gives `{ principal: Principal } & { entity: Book }`).
 */
export type LayersAdd<U extends readonly unknown[]> = UnionToIntersection<AddsOf<U[number]>>;

/**
 * The context a declared route's handler receives: its own decoded inputs (`params`, `query`,
 * `body`, from its codecs) and `var`, what its layers add (`V`, from `use` and `auth`).
 */
export type RouteContext<P extends string, PC, QC, B, V> = Omit<
  Context<ParamsOf<P>>,
  'params' | 'query' | 'var'
> & {
  readonly params: DecodedParams<P, PC>;
  readonly query: DecodedQuery<QC>;
  readonly body: B;
  readonly var: Readonly<V & Variables>;
};

/**
 * A declared route: what it takes, what it answers, who may call it, and its handler. The library
 * decodes and validates `params`, `query` and `body` before the handler runs, so the handler's
 * `ctx.params`, `ctx.query` and `ctx.body` are typed without annotations.
 *
 * @example
 * app.route({
 *   method: 'POST', path: '/orders', auth: 'principal',
 *   body: { codec: strictObject({ bookId: positiveInteger }), type: 'orders' },
 *   responses: { 201: { description: 'The order', body: 'resource' } },
 *   handler: (ctx) => created(`/orders/1`, { data: ... ctx.body.bookId ... }),
 * });
 */
export interface RouteDefinition<
  P extends string = string,
  PC = {},
  QC = undefined,
  B = undefined,
  A extends RouteAuth | undefined = undefined,
  U extends readonly Middleware<LayerContext<P, PC, QC>, object>[] = readonly Middleware<
    LayerContext<P, PC, QC>,
    object
  >[],
> {
  readonly method: string;
  /** `/books/{id}`: `{name}` segments become `ctx.params`. */
  readonly path: P;
  /** What the operation does, in a few words (the API description's `summary`). */
  readonly summary?: string;
  /** More about it (CommonMark, the API description's `description`). */
  readonly description?: string;
  /** Codecs for path parameters; a value a codec refuses names no resource: 404. */
  readonly params?: PC & SchemasOf<PC> & { readonly [K in Exclude<keyof PC, keyof ParamsOf<P>>]: never };
  /** Codecs for the query parameters the route takes; any other, a repeated or an invalid one: 400. */
  readonly query?: QC & SchemasOf<QC>;
  /** The request body the route takes: 415, 413 and 400 as `decodeJsonBody` answers them. */
  readonly body?: BodySpec<B, P>;
  /** The responses the route documents, by status code. */
  readonly responses?: Readonly<Record<number, ResponseSpec>>;
  /** Who may call it (default `'none'`): 401 without a principal, 403 without the scopes. */
  readonly auth?: A;
  /** The largest request body any layer reads for this route (default 100 KiB). */
  readonly bodyLimit?: number;
  /** Response media types, in server preference (default JSON:API, then JSON). Negotiated on `Accept`. */
  readonly produces?: readonly string[];
  /** JSON:API 1.1 profiles (URIs) its JSON:API answers apply: in their `Content-Type`, and described. */
  readonly profiles?: readonly string[];
  /**
   * Set when the route is deprecated: the `deprecation` middleware runs first of the route's layers and
   * sends `Deprecation`, `Sunset` and `Link` on every response (docs/deprecation.md).
   */
  readonly deprecated?: RouteDeprecation;
  /**
   * Route middleware, run after the application's and the declared `auth`, outermost first. What
   * each declares it adds (`requireAuth()`: the principal; `conditional({ load })`: the entity) shows
   * in the handler's `ctx.var`, all of them together, without a type argument.
   */
  readonly use?: U;
  readonly handler: (
    ctx: RouteContext<P, PC, QC, B, LayersAdd<U> & AuthVariables<A>>,
  ) => Promise<ApiResponse> | ApiResponse;
}

/**
 * A registered route as `app.routes()` lists it: frozen, self-describing, for generators (OpenAPI),
 * linters and test kits.
 */
export interface RouteInfo extends RouteFacts {
  /** Upper-case method. */
  readonly method: string;
  readonly summary?: string;
  readonly description?: string;
  /** Parameter names in path order. */
  readonly paramNames: readonly string[];
  readonly params: ListedCodecs;
  /** Absent when the route does not declare its query (it then reads `ctx.query` as raw strings). */
  readonly query: ListedCodecs | undefined;
  readonly body:
    | { readonly codec: AnyCodec; readonly type: string; readonly id?: string; readonly example?: unknown }
    | undefined;
  readonly responses: Readonly<Record<number, ListedResponseSpec>>;
  readonly auth: RouteAuth;
  /** The declared response media types; `undefined`: the default, `RESPONSE_MEDIA_TYPES`. */
  readonly produces: readonly string[] | undefined;
  readonly deprecated: RouteDeprecation | undefined;
  /** How many route middleware run (their order is the declaration's). */
  readonly middlewareCount: number;
  /**
   * What the app's and the route's middleware add to its contract (headers, statuses), app-wide
   * layers first (see `describeLayer`).
   */
  readonly contracts: readonly OperationContract[];
}

/** A declared route whose types have been checked, ready for `app.route` (see {@link defineRoute}). */
// biome-ignore lint/suspicious/noExplicitAny: the declaration's own types were checked by defineRoute
export type DeclaredRouteDefinition = RouteDefinition<string, any, any, any, any, any>;

/**
 * Where routes are declared: the core app (`createApp`) and the framework adapters'
 * `describedRoutes`. `route` registers one (chainable); its `{params}`, declared `query` and `body`,
 * and what its middleware and `auth` add are typed in the handler without annotations. `routes()`
 * lists the declarations, frozen, in registration order: for OpenAPI generators, linters, test kits.
 */
export interface RouteRegistry<Self> {
  route<
    const P extends string,
    const U extends readonly Middleware<LayerContext<P, PC, QC>, object>[],
    PC = {},
    QC = undefined,
    B = undefined,
    const A extends RouteAuth | undefined = undefined,
  >(definition: RouteDefinition<P, PC, QC, B, A, U>): Self;
  routes(): readonly RouteInfo[];
}

/**
 * Check a route declaration's types where it is written (its handler's `ctx` is inferred exactly as in
 * `app.route`) and return it as a value, so a feature module can export its routes from its
 * dependencies and the composition root registers them.
 *
 * @example
 * export const booksRoutes = (deps: { bookStore: BookStore }) => [
 *   defineRoute({ method: 'GET', path: '/books/{id}', handler: (ctx) => ... }),
 * ];
 * for (const route of booksRoutes(deps)) app.route(route);
 */
export function defineRoute<
  const P extends string,
  const U extends readonly Middleware<LayerContext<P, PC, QC>, object>[],
  PC = {},
  QC = undefined,
  B = undefined,
  const A extends RouteAuth | undefined = undefined,
>(definition: RouteDefinition<P, PC, QC, B, A, U>): DeclaredRouteDefinition {
  return definition as unknown as DeclaredRouteDefinition;
}
