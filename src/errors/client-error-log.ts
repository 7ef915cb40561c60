import type { Logger } from '../http/types.js';

/**
 * The most client-error lines one logger receives per second (a fixed one-second window). A client
 * can cause as many client errors as it can send requests; past the bound they are counted, and the
 * first line of the next window says how many were left out (`omittedClientErrors`).
 */
export const CLIENT_ERROR_LOGS_PER_SECOND = 10;

interface Window {
  start: number;
  logged: number;
  omitted: number;
}

/**
 * A rate-bounded warning writer for client errors, one budget per logger. Client errors (4xx, and
 * 501 for a request the server does not implement, RFC 9110 section 15.6.2) are the client's doing:
 * logged as warnings, never at error level, and never with a stack.
 */
export function clientErrorLog(
  now: () => number = Date.now,
): (logger: Logger, fields: Record<string, unknown>) => void {
  const windows = new WeakMap<Logger, Window>();
  return (logger, fields) => {
    const at = now();
    let window = windows.get(logger);
    if (window === undefined) {
      window = { start: at, logged: 0, omitted: 0 };
      windows.set(logger, window);
    }
    if (at - window.start >= 1000) {
      window.start = at;
      window.logged = 0;
    }
    if (window.logged >= CLIENT_ERROR_LOGS_PER_SECOND) {
      window.omitted++;
      return;
    }
    window.logged++;
    const omitted = window.omitted;
    window.omitted = 0;
    logger.warn(omitted === 0 ? fields : { ...fields, omittedClientErrors: omitted }, 'request refused');
  };
}
