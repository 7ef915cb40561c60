import { context, trace } from '@opentelemetry/api';

/** The trace a log line belongs to, under the names log collectors join on (OpenTelemetry's log data model). */
export interface TraceLogFields {
  readonly trace_id?: string;
  readonly span_id?: string;
  readonly trace_flags?: string;
}

/**
 * `trace_id`, `span_id` and `trace_flags` of the active span, for a logger's every line: pass it as
 * pino's `mixin`, so a request's log lines join its trace. Empty outside a traced request.
 *
 * @example
 * const logger = pino({ mixin: traceLogFields });
 */
export function traceLogFields(): TraceLogFields {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, '0') };
}
