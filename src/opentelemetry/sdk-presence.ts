import {
  createNoopMeter,
  type Histogram,
  ProxyTracerProvider,
  type TracerProvider,
} from '@opentelemetry/api';

/** What the global tracer provider delegates to while no SDK has registered one. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The class of the API's no-op histogram: what a meter gives while no SDK is registered. */
const NOOP_HISTOGRAM = createNoopMeter().createHistogram('rest_conventions.probe').constructor;

/**
 * Whether nothing would record: the tracer provider is the API's no-op one (or the global proxy
 * delegating to it) and `histogram` came from the no-op meter. Read once, when a middleware or a
 * store wrapper is made: with no SDK registered by then, it is made as nothing at all, so an
 * application that loads the subpath without an SDK pays no per-request cost.
 */
export function recordsNothing(tracerProvider: TracerProvider, histogram: Histogram): boolean {
  const delegate =
    tracerProvider instanceof ProxyTracerProvider ? tracerProvider.getDelegate() : tracerProvider;
  return delegate === NOOP_TRACER_PROVIDER && histogram.constructor === NOOP_HISTOGRAM;
}
