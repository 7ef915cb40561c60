import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Config } from './config.js';

/** The running SDK: flushes and stops it (at shutdown, after the last request). */
export interface Telemetry {
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK when the environment asks for it (`METRICS_PORT` or any `OTEL_*`
 * variable), before the app is built, so that its middleware and store wrappers find the registered
 * providers. The SDK reads `OTEL_*` itself, as its documentation gives them: `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_EXPORTER` (default `otlp`), `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_TRACES_SAMPLER`, `OTEL_PROPAGATORS`, `OTEL_SDK_DISABLED`... `METRICS_PORT` adds a Prometheus
 * scrape endpoint (`GET /metrics`) on its own port, apart from the API's.
 */
export async function startTelemetry(config: Config): Promise<Telemetry | undefined> {
  if (!config.telemetry.enabled) return undefined;
  const { metricsPort } = config.telemetry;
  let exporter: PrometheusExporter | undefined;
  if (metricsPort !== undefined) {
    exporter = new PrometheusExporter({ port: metricsPort, preventServerStart: true });
    // Listening before the SDK starts: a port in use stops the app at start-up, not later.
    await exporter.startServer();
  }
  // Without METRICS_PORT the SDK chooses its metric readers from OTEL_METRICS_EXPORTER.
  const sdk = new NodeSDK(exporter === undefined ? {} : { metricReaders: [exporter] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
