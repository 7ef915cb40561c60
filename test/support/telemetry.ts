import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SignJWT } from 'jose';
import { DEV_AUTH_SECRET } from '../../examples/reference-app/config.js';

/** A reader whose `collect()` the test calls: metrics are read when asked, not on a timer. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * The OpenTelemetry SDK with an in-memory span exporter and a metric reader the test collects from;
 * the global context manager (AsyncLocalStorage) and the W3C trace-context propagator registered,
 * as an application's SDK set-up does.
 */
export function inMemoryTelemetry() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    /** Every metric collected now, by name. */
    metrics: async (): Promise<Map<string, MetricData>> => {
      const { resourceMetrics } = await reader.collect();
      const byName = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      return byName;
    },
    close: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** A counter's value for the data point whose attributes include `attributes` (0 when none has). */
export function counted(metric: MetricData | undefined, attributes: Record<string, unknown>): number {
  let total = 0;
  for (const point of (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[]) {
    if (!Object.entries(attributes).every(([k, v]) => point.attributes[k] === v)) continue;
    total += typeof point.value === 'number' ? point.value : point.value.count;
  }
  return total;
}

/**
 * A bearer token for the reference app's development secret, issued to the OAuth client `clientId`
 * (`client_id`, RFC 9068 section 2.2): what its telemetry reports as the caller.
 */
export async function clientToken(sub: string, clientId: string): Promise<string> {
  const token = await new SignJWT({ client_id: clientId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(DEV_AUTH_SECRET));
  return `Bearer ${token}`;
}

/** The body of a valid `POST /orders` to the reference app. */
export const ORDER = JSON.stringify({ data: { type: 'orders', attributes: { bookId: 1, quantity: 2 } } });
