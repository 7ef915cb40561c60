/**
 * What a middleware adds to the contract of every route it runs on: request headers it reads, the
 * statuses it may answer with, the headers it writes. `app.routes()` lists them per route, so an
 * OpenAPI document (`rest-conventions/openapi`), a linter or a test kit describes what a route's
 * layers do without the route repeating it.
 */

/** A header a layer reads or writes, as an API description names it. */
export interface HeaderContract {
  readonly description: string;
  /** Always there (on the responses it is declared for), or required of the client. */
  readonly required?: boolean;
  /** A JSON Schema of its value (default a string). */
  readonly schema?: { readonly [keyword: string]: unknown };
}

/** A status a layer may answer with by itself, and the headers that come with it. */
export interface StatusContract {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderContract>>;
  /** `false` for a response without a body (304). Default: an error document. */
  readonly body?: false;
}

export interface OperationContract {
  /** Request headers the layer reads (`If-Match`, `Idempotency-Key`). */
  readonly requestHeaders?: Readonly<Record<string, HeaderContract>>;
  /** Statuses the layer answers with by itself (`304`, `412`, `429`). */
  readonly responses?: Readonly<Record<number, StatusContract>>;
  /** Headers on every success response (`ETag`, `Deprecation`). */
  readonly successHeaders?: Readonly<Record<string, HeaderContract>>;
  /** Headers on every response, errors included (`RateLimit`, `Cache-Control`). */
  readonly allHeaders?: Readonly<Record<string, HeaderContract>>;
  /** The layer requires a principal, with these scopes (possibly none). */
  readonly security?: { readonly scopes: readonly string[] };
  /** The layer announces the route as deprecated. */
  readonly deprecated?: boolean;
  /**
   * The layer announces a deprecation (RFC 9745) with its sunset (RFC 8594) and successor: for every
   * request, or only for one API `version` (then the routes whose path names that version are
   * deprecated, and unversioned ones may announce it when that version is negotiated).
   */
  readonly deprecation?: { readonly version?: number; readonly sunset?: string; readonly successor?: string };
  /** Only for these methods (upper-case); all when absent. */
  readonly methods?: readonly string[];
  /** Not on routes with these path patterns (a layer that skips them: health probes). */
  readonly exceptPaths?: readonly string[];
}

/** Where a middleware keeps its contracts (see {@link describeLayer}). */
export const CONTRACT: unique symbol = Symbol.for('rest-conventions.contract');

/**
 * Attach contracts to a middleware (returns the same function): what it adds to every route it runs
 * on, one contract per set of methods. The library's own middleware carry theirs; give your own one
 * so descriptions stay true.
 *
 * @example describeLayer(tenantHeader(), { requestHeaders: { 'X-Tenant': { description: 'The tenant', required: true } } })
 */
export function describeLayer<F extends object>(layer: F, ...contracts: readonly OperationContract[]): F {
  Object.defineProperty(layer, CONTRACT, {
    value: Object.freeze(contracts.map((contract) => Object.freeze(contract))),
    enumerable: false,
    configurable: true,
  });
  return layer;
}

/** The contracts a middleware carries (none: empty). */
export function contractOf(layer: unknown): readonly OperationContract[] {
  if (typeof layer !== 'function' && (typeof layer !== 'object' || layer === null)) return [];
  return (layer as { [CONTRACT]?: readonly OperationContract[] })[CONTRACT] ?? [];
}

/** The contracts of a list of middleware, in order. */
export function contractsOf(layers: readonly unknown[]): OperationContract[] {
  return layers.flatMap((layer) => contractOf(layer));
}
