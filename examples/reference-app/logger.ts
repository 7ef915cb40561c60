import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pinoPretty from 'pino-pretty';

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
  const level = options.level ?? 'info';
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (pretty) return pino({ level }, pinoPretty({ colorize: true, destination: options.destination ?? 1 }));
  return pino({ level }, options.destination ?? pino.destination(1));
}
