/**
 * A value now, or later. The pipeline stays synchronous until some layer has to wait: a layer that
 * answers at once costs no promise and no microtask turn. This module is the one place that tells
 * the two apart.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Whether `value` must be waited for (a native promise; a value is never mistaken for one). */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T>;
export function isPromise(value: unknown): value is Promise<unknown>;
export function isPromise(value: unknown): value is Promise<unknown> {
  return value instanceof Promise;
}

/**
 * `onValue(value)` now when `value` is at hand, or once it settles: a promise only when `value` is
 * one (whatwg-node's `handleMaybePromise`, over a value rather than a factory). `onError` takes a
 * rejection of `value`; a throw in `onValue` is the caller's, thrown now or rejected later.
 */
export function whenSettled<T, U>(
  value: MaybePromise<T>,
  onValue: (value: T) => MaybePromise<U>,
  onError?: (error: unknown) => MaybePromise<U>,
): MaybePromise<U> {
  return value instanceof Promise ? value.then(onValue, onError) : onValue(value);
}
