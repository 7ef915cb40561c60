import type { ApiResponse, Context, Handler, Middleware } from './types.js';

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
  const layers = middleware.slice();
  const count = layers.length;

  if (count === 0) {
    return async function runTerminal(ctx) {
      try {
        return await terminal(ctx);
      } catch (error) {
        return onError(error, ctx);
      }
    };
  }

  return function runComposed(ctx) {
    let called = -1;
    const dispatch = async (index: number): Promise<ApiResponse> => {
      if (index <= called) throw new Error('next() called more than once in one middleware');
      called = index;
      try {
        if (index === count) return await terminal(ctx);
        return await layers[index]!(ctx, () => dispatch(index + 1));
      } catch (error) {
        return onError(error, ctx);
      }
    };
    return dispatch(0);
  };
}
