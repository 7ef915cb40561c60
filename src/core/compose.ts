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
    // One error handler per request; each layer's promise gets it instead of an async frame per layer.
    const recover = (error: unknown) => onError(error, ctx);
    const dispatch = (index: number): Promise<ApiResponse> => {
      if (index <= called) return Promise.reject(new Error('next() called more than once in one middleware'));
      called = index;
      let result: Promise<ApiResponse> | ApiResponse;
      try {
        result = index === count ? terminal(ctx) : layers[index]!(ctx, () => dispatch(index + 1));
      } catch (error) {
        return Promise.resolve(recover(error));
      }
      return result instanceof Promise ? result.catch(recover) : Promise.resolve(result);
    };
    return dispatch(0);
  };
}
