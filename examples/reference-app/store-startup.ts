/** How the app meets a shared store at start-up: bounded, and refused in one clear line. */

/**
 * A store the app cannot start without is unusable: the message says which store, where, and why, in
 * one line, without the URL's credentials (`main.ts` prints it and exits non-zero).
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** `host:port` of a connection URL, never its user or password. */
export function hostOf(url: string, setting: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new StartupError(`${setting} is not a valid URL`);
  }
}

/** The reason of a connection failure, in a few words: an errno code or the first line of a message. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** How long start-up waits for a store to answer (connect, handshake, first command): 2 s. */
export const STORE_CONNECT_TIMEOUT_MS = 2_000;

/**
 * `work`, or a rejection once `ms` have passed: a store that accepts the connection but never
 * answers (stalled, overloaded) must not hang start-up.
 */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
