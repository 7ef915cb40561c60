import { earlyResponseOf, type MiddlewareHooks } from '../http/middleware-hooks.js';
import type { ApiResponse, Context, Handler, Middleware } from '../http/types.js';

import { isPromise, type MaybePromise, whenSettled } from './maybe-promise.js';

/** Turns anything a layer threw into a response, so outer layers always see a response. */
export type ErrorRenderer = (error: unknown, ctx: Context) => ApiResponse;

/**
 * Compose middleware into one function, outermost first, ending in `terminal`.
 *
 * A throw in any layer becomes a response at that layer (via `onError`), so an outer layer such as
 * security headers or rate-limit headers decorates error responses too. Calling `next()` twice is a
 * programming error and rejects.
 */
export function compose<C extends Context>(
  middleware: readonly Middleware<C>[],
  terminal: Handler<C>,
  onError: ErrorRenderer,
): (ctx: C) => Promise<ApiResponse> {
  const run = composePipeline(middleware, terminal, onError);
  // Promise.resolve hands a native promise back as it is.
  return (ctx) => Promise.resolve(run(ctx));
}

/**
 * {@link compose}, answering synchronously when no layer waits. Middleware made with
 * `defineMiddleware` runs as two plain calls (its `before` and `after` hooks) instead of an async
 * frame wrapped around the rest, so a run of such layers costs no promise unless one of them waits.
 * The result never rejects: every throw has become a response at the layer that threw.
 */
export function composePipeline<C extends Context>(
  middleware: readonly Middleware<C>[],
  terminal: Handler<C>,
  onError: ErrorRenderer,
): (ctx: C) => MaybePromise<ApiResponse> {
  const layers = middleware.slice();
  const hooks = layers.map((layer) => (layer as { hooks?: MiddlewareHooks<C, unknown> }).hooks);
  const count = layers.length;

  /**
   * Runs the `after` hooks of layers `to` down to `from` (all hooked) on the way out, each with the
   * state its own `before` returned (`states[i]`, absent when no layer kept any).
   */
  const unwind = (
    ctx: C,
    from: number,
    to: number,
    response: ApiResponse,
    states: unknown[] | undefined,
  ): ApiResponse => {
    let current = response;
    for (let i = to; i >= from; i--) {
      const after = hooks[i]!.after;
      if (after === undefined) continue;
      try {
        current = after(ctx, current, states?.[i]);
      } catch (error) {
        current = onError(error, ctx);
      }
    }
    return current;
  };

  /** Runs layers from `start` on: hooked ones in place, up to the first one that wraps `next`. */
  const runFrom = (ctx: C, start: number, kept?: unknown[]): MaybePromise<ApiResponse> => {
    let states = kept;
    for (let i = start; i < count; i++) {
      const layer = hooks[i];
      if (layer === undefined) {
        const held = states;
        return whenSettled(runWrapping(ctx, i), (r) => unwind(ctx, start, i - 1, r, held));
      }
      const { before } = layer;
      if (before === undefined) continue;
      let early: unknown;
      try {
        early = before(ctx);
      } catch (error) {
        return unwind(ctx, start, i - 1, onError(error, ctx), states);
      }
      if (isPromise(early)) {
        const held = states;
        return early.then(
          (answer: unknown) => {
            if (answer === undefined)
              return whenSettled(runFrom(ctx, i + 1, held), (r) => unwind(ctx, start, i, r, held));
            const response = earlyResponseOf(answer);
            if (response !== undefined) return unwind(ctx, start, i - 1, response, held);
            const withState = keep(held, i, answer);
            return whenSettled(runFrom(ctx, i + 1, withState), (r) => unwind(ctx, start, i, r, withState));
          },
          (error: unknown) => unwind(ctx, start, i - 1, onError(error, ctx), held),
        );
      }
      if (early === undefined) continue;
      const response = earlyResponseOf(early);
      if (response !== undefined) return unwind(ctx, start, i - 1, response, states);
      states = keep(states, i, early);
    }
    let result: MaybePromise<ApiResponse>;
    try {
      result = terminal(ctx);
    } catch (error) {
      return unwind(ctx, start, count - 1, onError(error, ctx), states);
    }
    // The common answer is synchronous: branch here rather than through whenSettled, so it
    // allocates no callbacks (6% of a GET's main-thread instructions, counted by callgrind).
    if (!isPromise(result)) return unwind(ctx, start, count - 1, result, states);
    const held = states;
    return result.then(
      (r) => unwind(ctx, start, count - 1, r, held),
      (error: unknown) => unwind(ctx, start, count - 1, onError(error, ctx), held),
    );
  };

  /** A `(ctx, next)` middleware: the rest of the pipeline is its `next`, callable once. */
  const runWrapping = (ctx: C, index: number): MaybePromise<ApiResponse> => {
    let called = false;
    const next = (): Promise<ApiResponse> => {
      if (called) return Promise.reject(new Error('next() called more than once in one middleware'));
      called = true;
      return Promise.resolve(runFrom(ctx, index + 1));
    };
    let result: Promise<ApiResponse>;
    try {
      result = layers[index]!(ctx, next);
    } catch (error) {
      return onError(error, ctx);
    }
    return isPromise(result) ? result.catch((error: unknown) => onError(error, ctx)) : result;
  };

  return (ctx) => runFrom(ctx, 0);
}

/** Per-request layer states, allocated only once some layer keeps one. */
function keep(states: unknown[] | undefined, index: number, state: unknown): unknown[] {
  const held = states ?? [];
  held[index] = state;
  return held;
}

/**
 * A middleware given as hooks around the rest of the pipeline rather than wrapped around it: the
 * pipeline calls `before` on the way in and `after` on the way out, without an async frame per layer
 * (the cheap way for work that only adds headers or may answer early). The result is still an
 * ordinary `(ctx, next)` middleware, usable anywhere one is.
 *
 * Same rules as a wrapping middleware: a response `before` tags with `earlyResponse(response)`
 * answers at once (inner layers do not run, this layer's `after` does not either); any other value
 * it returns is this request's state at this layer, handed to `after`, whatever its shape; a throw in either hook becomes the response at this
 * layer, which outer layers still see; `after` sees every response that comes back from inside,
 * error responses included.
 *
 * @example
 * const poweredByNothing = defineMiddleware({
 *   after: (_ctx, response) => {
 *     response.headers['x-robots-tag'] ??= 'noindex';
 *     return response;
 *   },
 * });
 */
export function defineMiddleware<C extends Context = Context, S = undefined, Adds extends object = {}>(
  hooks: MiddlewareHooks<C, S>,
): Middleware<C, Adds> & { readonly hooks: MiddlewareHooks<C, S> } {
  const { before, after } = hooks;
  if (before !== undefined && typeof before !== 'function') throw new TypeError('before must be a function');
  if (after !== undefined && typeof after !== 'function') throw new TypeError('after must be a function');
  const middleware = async (ctx: C, next: () => Promise<ApiResponse>): Promise<ApiResponse> => {
    const early: unknown = before === undefined ? undefined : await before(ctx);
    const answer = earlyResponseOf(early);
    if (answer !== undefined) return answer;
    const response = await next();
    return after === undefined ? response : after(ctx, response, early as S | undefined);
  };
  return Object.assign(middleware, { hooks: Object.freeze({ before, after }) });
}
