/** A store call that did not settle within the configured time. */
export class StoreTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`rate-limit store did not answer within ${timeoutMs} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * Settle with `call()`'s result, or reject with a {@link StoreTimeoutError} after `timeoutMs`, so a
 * request never waits on a dead store. A late settlement of the abandoned call is absorbed (no
 * unhandled rejection); a synchronous throw becomes a rejection.
 */
export function withTimeout<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs);
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      finish();
    };
    try {
      call().then(
        (value) => settle(() => resolve(value)),
        (error: unknown) => settle(() => reject(error)),
      );
    } catch (error) {
      settle(() => reject(error));
    }
  });
}
