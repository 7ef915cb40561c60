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

/**
 * Values some of which may come later, settled each as it arrives and finished once all have: the
 * promises still pending, undefined while every value was at hand (the common case, which allocates
 * nothing). Built by {@link settleOrCollect}, finished by {@link afterPending}.
 */
export type Pending = Promise<unknown>[] | undefined;

/**
 * `onValue(value)` now when `value` is at hand, or once it settles: then its promise joins
 * `pending` (made on the first one). Returns the pending list, to pass on and to {@link afterPending}.
 */
export function settleOrCollect<T>(
  pending: Pending,
  value: MaybePromise<T>,
  onValue: (value: T) => void,
): Pending {
  if (!isPromise(value)) {
    onValue(value);
    return pending;
  }
  const later = value.then(onValue);
  if (pending === undefined) return [later];
  pending.push(later);
  return pending;
}

/** `finish()` now when nothing is pending, or once every pending value settled (the first rejection rejects). */
export function afterPending<U>(pending: Pending, finish: () => MaybePromise<U>): MaybePromise<U> {
  return pending === undefined ? finish() : Promise.all(pending).then(finish);
}
