/**
 * The reference app with the OpenTelemetry SDK registered and exporters that drop what they are
 * given (`npm run bench:instructions`, server `app+otel-sdk`): what recording spans and metrics costs,
 * apart from sending them anywhere. Run with `OTEL_SDK_DISABLED=true`, so that the app wires its
 * telemetry but starts no SDK of its own: this one is registered first.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const success = { code: ExportResultCode.SUCCESS };
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(
  new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({ export: (_spans, done) => done(success), shutdown: async () => {} }),
    ],
  }),
);
metrics.setGlobalMeterProvider(
  new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: {
          export: (_metrics, done) => done(success),
          forceFlush: async () => {},
          shutdown: async () => {},
          selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
        },
        exportIntervalMillis: 1_000,
      }),
    ],
  }),
);
await import('../examples/reference-app/main.js');
