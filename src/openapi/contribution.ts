import type { JsonSchema } from './types.js';

/** A header a layer reads or writes, as an OpenAPI document names it. */
export interface HeaderContract {
  readonly description: string;
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

/** An error or other status a layer may answer with, and the headers that come with it. */
export interface StatusContract {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderContract>>;
  /** `false` for a response without a body (304). Default: an error document. */
  readonly body?: false;
}

/**
 * What a middleware adds to the contract of every route it runs on: request headers it reads, the
 * statuses it may answer with, and the headers it writes. `openApiDocument` merges these into each
 * operation, so a route documents what its layers do without repeating it.
 */
export interface OperationContract {
  /** Request headers the layer reads (`If-Match`, `Idempotency-Key`). */
  readonly requestHeaders?: Readonly<Record<string, HeaderContract>>;
  /** Statuses the layer answers with by itself (`304`, `412`, `429`). */
  readonly responses?: Readonly<Record<number, StatusContract>>;
  /** Headers on every success response (`ETag`, `Cache-Control`). */
  readonly successHeaders?: Readonly<Record<string, HeaderContract>>;
  /** Headers on every response, errors included (`RateLimit`). */
  readonly allHeaders?: Readonly<Record<string, HeaderContract>>;
  /** Only for these methods (upper-case); all when absent. */
  readonly methods?: readonly string[];
}

/** Where a middleware keeps its contract (see {@link describeLayer}). */
export const CONTRACT: unique symbol = Symbol.for('rest-conventions.contract');

/** Attach a contract to a middleware function (returns the same function). */
export function describeLayer<F extends object>(layer: F, contract: OperationContract): F {
  Object.defineProperty(layer, CONTRACT, { value: Object.freeze(contract), enumerable: false });
  return layer;
}

/** The contract a middleware carries, if any. */
export function contractOf(layer: unknown): OperationContract | undefined {
  return typeof layer === 'function' || (typeof layer === 'object' && layer !== null)
    ? ((layer as { [CONTRACT]?: OperationContract })[CONTRACT] ?? undefined)
    : undefined;
}
