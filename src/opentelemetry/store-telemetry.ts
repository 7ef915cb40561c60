import {
  type Attributes,
  type MeterProvider,
  metrics,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { isPromise } from '../core/maybe-promise.js';
import { recordsNothing } from './sdk-presence.js';
import { DB_DURATION_BUCKETS, DB_OPERATION_NAME, DB_SYSTEM_NAME, ERROR_TYPE, SCOPE } from './semconv.js';
import { errorName } from './server-telemetry.js';

export interface StoreTelemetryOptions {
  /**
   * `db.system.name`: `redis`, `postgresql`, or the application's own name for another store
   * (database conventions, "db.system.name"); the library's in-memory stores can be named `memory`.
   */
  readonly system: string;
  /** Which store this is (`idempotency`, `ratelimit`): `rest_conventions.store`, and the span name's target. */
  readonly store: string;
  readonly tracerProvider?: TracerProvider;
  /** Instruments are made when the store is wrapped: register the SDK's meter provider first. */
  readonly meterProvider?: MeterProvider;
}

/** The attribute naming which of the application's stores a call went to. */
export const STORE_ATTRIBUTE = 'rest_conventions.store';

/**
 * The same store, each of its method calls a client span per OpenTelemetry's database conventions
 * (`db.system.name`, `db.operation.name` = the method, less a `Sync` suffix, `error.type` when it rejects) and a sample of
 * `db.client.operation.duration`: how slow the idempotency or rate-limit store is, and how often it
 * fails (docs/observability.md). Works on any store object (an `IdempotencyStore`, a
 * `RateLimitStore`, an application's own), without changing it: properties that are not methods
 * are read through, and what a transactional store's `begin` opens is wrapped the same way. Wrapped while no SDK is registered, the store is given back as it is.
 *
 * @example
 * const store = storeTelemetry(redisIdempotencyStore({ client }), { system: 'redis', store: 'idempotency' });
 */
export function storeTelemetry<S extends object>(store: S, options: StoreTelemetryOptions): S {
  if (typeof store !== 'object' || store === null)
    throw new TypeError('storeTelemetry: store must be an object');
  if (typeof options !== 'object' || options === null)
    throw new TypeError('storeTelemetry: options must be an object');
  const { system, store: storeName } = options;
  if (typeof system !== 'string' || system === '')
    throw new TypeError('storeTelemetry: system must be a non-empty db.system.name');
  if (typeof storeName !== 'string' || storeName === '')
    throw new TypeError('storeTelemetry: store must be a non-empty name');
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = tracerProvider.getTracer(SCOPE);
  const duration = (options.meterProvider ?? metrics.getMeterProvider())
    .getMeter(SCOPE)
    .createHistogram('db.client.operation.duration', {
      unit: 's',
      description: 'Duration of calls to the store.',
      advice: { explicitBucketBoundaries: DB_DURATION_BUCKETS },
    });

  // No SDK registered: the store as it is, without a wrapper to pay for on each call.
  if (recordsNothing(tracerProvider, duration)) return store;
  const instrument = (target: object, operation: string, method: (...args: unknown[]) => unknown) => {
    const attributes: Attributes = {
      [DB_SYSTEM_NAME]: system,
      [DB_OPERATION_NAME]: operation,
      [STORE_ATTRIBUTE]: storeName,
    };
    const spanName = `${operation} ${storeName}`;
    // What `begin` opens (a StoreTransaction) is the store's too: its complete, commit and rollback
    // are calls to the same database, spanned and timed like the store's own.
    const settled =
      operation === 'begin'
        ? (value: unknown) => (typeof value === 'object' && value !== null ? instrumented(value) : value)
        : (value: unknown) => value;
    return function (this: unknown, ...args: unknown[]): unknown {
      const span = tracer.startSpan(spanName, { kind: SpanKind.CLIENT, attributes });
      const started = performance.now();
      const done = (error: unknown) => {
        const seconds = (performance.now() - started) / 1000;
        if (error === undefined) duration.record(seconds, attributes);
        else {
          const type = errorName(error);
          duration.record(seconds, { ...attributes, [ERROR_TYPE]: type });
          span.setAttribute(ERROR_TYPE, type);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      };
      let result: unknown;
      try {
        // The store's own `this`: its private fields stay reachable.
        result = method.apply(target, args);
      } catch (error) {
        done(error);
        throw error;
      }
      if (isPromise(result)) {
        return result.then(
          (value: unknown) => {
            done(undefined);
            return settled(value);
          },
          (error: unknown) => {
            done(error);
            throw error;
          },
        );
      }
      done(undefined);
      return settled(result);
    };
  };

  /** `target` with each method call spanned; other properties read through. */
  function instrumented<T extends object>(target: T): T {
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        let method = wrapped.get(property);
        if (method === undefined) {
          // `consumeSync` is `consume` answered without waiting (an in-memory store): one operation.
          method = instrument(
            object,
            property.replace(/Sync$/, ''),
            value as (...args: unknown[]) => unknown,
          );
          wrapped.set(property, method);
        }
        return method;
      },
    });
  }

  return instrumented(store);
}
