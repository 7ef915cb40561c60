/** Rejection of a store call that took longer than its bound. */
export class StoreTimeoutError extends Error {
  constructor(ms: number) {
    super(`idempotency store call timed out after ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Bound a promise by `ms`. The underlying call cannot be cancelled, so a result that arrives after
 * the deadline goes to `onLate` (e.g. to release a claim nobody will use); a late failure is ignored.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new StoreTimeoutError(ms));
    }, ms);
    timer.unref?.();
    promise.then(
      (value) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        } else onLate?.(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
