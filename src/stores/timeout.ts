import { isPromise, type MaybePromise } from '../core/maybe-promise.js';

/** A store call that did not settle within its bound. */
export class StoreTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`store call did not settle within ${timeoutMs} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Settle with `call()`'s result, or reject with a {@link StoreTimeoutError} after `timeoutMs`, so a
 * request never waits on a dead store. The call cannot be cancelled: a result that arrives after
 * the deadline goes to `onLate` (e.g. to release a claim nobody will use) and a late failure is
 * absorbed (no unhandled rejection). A synchronous throw becomes a rejection.
 */
export function withTimeout<T>(
  call: () => MaybePromise<T>,
  timeoutMs: number,
  onLate?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new StoreTimeoutError(timeoutMs));
    }, timeoutMs);
    timer.unref?.();
    const onValue = (value: T) => {
      if (settled) {
        onLate?.(value);
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const onError = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    try {
      const result = call();
      if (isPromise(result)) result.then(onValue, onError);
      else onValue(result);
    } catch (error) {
      onError(error);
    }
  });
}
