/**
 * A middleware given as hooks (`defineMiddleware` in `src/core/compose.ts`), and the tag that tells
 * a `before` hook's answer from its state.
 */
import type { ApiResponse, Context } from './types.js';

/**
 * The tag on a `before` hook's answer. Registered (`Symbol.for`), so the ESM and CommonJS copies of
 * the package loaded in one process agree on it.
 */
const EARLY: unique symbol = Symbol.for('rest-conventions.earlyResponse');

/**
 * A response a `before` hook answers with, told apart from the hook's state by its tag rather than by
 * its shape: any other value `before` returns is state, even one with a `status` and `headers`.
 */
export interface EarlyResponse {
  readonly [EARLY]: ApiResponse;
}

/**
 * Tags `response` as the answer of a `before` hook (see `defineMiddleware`): the pipeline sends it,
 * and the inner layers and the handler do not run.
 *
 * @example
 * before: (ctx) => (ctx.request.path === '/old' ? earlyResponse({ status: 308, headers: { location: '/new' } }) : undefined)
 */
export function earlyResponse(response: ApiResponse): EarlyResponse {
  return { [EARLY]: response };
}

/** The response in a `before` hook's result, or `undefined` when the result is state (or nothing). */
export function earlyResponseOf(value: unknown): ApiResponse | undefined {
  return typeof value === 'object' && value !== null && EARLY in value
    ? (value as EarlyResponse)[EARLY]
    : undefined;
}

/**
 * A middleware as two hooks instead of a wrapper (see `defineMiddleware`): `before` runs on the way
 * in and may answer at once; `after` runs on the way out on whatever response comes back.
 *
 * `before` returns `undefined` to go on, `earlyResponse(response)` to answer now, or any other value:
 * the state of this request at this layer, handed to this layer's `after` as its third argument
 * (`undefined` when `before` returned nothing). A response is told from state by that tag alone, so
 * state shaped like a response (`{ status, headers }`) is still state.
 */
export interface MiddlewareHooks<C extends Context = Context, S = undefined> {
  /** May wait (return a promise). */
  readonly before?: (ctx: C) => S | EarlyResponse | undefined | Promise<S | EarlyResponse | undefined>;
  /** Decorates (or replaces) the response coming back, error responses included. Synchronous. */
  readonly after?: (ctx: C, response: ApiResponse, state: S | undefined) => ApiResponse;
}
