import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pinoPretty from 'pino-pretty';
import { traceLogFields } from 'rest-conventions/opentelemetry';

export interface ReferenceAppLoggerOptions {
  /** Human-readable lines (pino-pretty) instead of JSON; default: when stdout is a terminal. */
  readonly pretty?: boolean;
  /** Where JSON lines go (default stdout); tests pass a memory stream. */
  readonly destination?: DestinationStream;
  /** Lowest level written (default `info`; main.ts passes `LOG_LEVEL`). */
  readonly level?: string;
}

/**
 * The reference app's logger: pino, pretty in a terminal and JSON lines otherwise (what a log
 * collector reads). A pino logger has the call shape of the library's `Logger`, so it is passed to
 * `createApp` as it is.
 */
export function referenceAppLogger(options: ReferenceAppLoggerOptions = {}): PinoLogger {
  // Each line of a traced request carries its `trace_id` and `span_id` (docs/observability.md).
  const settings = { level: options.level ?? 'info', mixin: traceLogFields };
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (pretty) return pino(settings, pinoPretty({ colorize: true, destination: options.destination ?? 1 }));
  return pino(settings, options.destination ?? pino.destination(1));
}
