import { describeResponse } from './response-checks.js';
import type { TargetRequest, TargetResponse } from './target.js';

/** A property does not hold: the message names the violation, the request (as `curl`) and the response. */
class Violation extends Error {}

/** A property does not apply to this API (nothing to check): reported as skipped, with the reason. */
export class NotApplicable extends Error {}

/**
 * The property could not be checked: the API refused the kit (its quota is spent, its tokens lack a
 * scope). It is the environment the kit ran in, not a broken convention, and is reported apart.
 */
export class NotChecked extends Error {}

/** The API's own quota refused the kit (a 429 the kit could not wait out): not checked. */
export class QuotaRefused extends NotChecked {}

/** Where the report's `curl` commands send a request when the target has no URL of its own. */
const NO_BASE = 'http://localhost';

/** `'...'` for a POSIX shell: a single quote inside is closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The request as a `curl` command a developer pastes into a shell to see the same answer. */
export function curlCommand(request: TargetRequest, base = NO_BASE): string {
  const url = `${base.replace(/\/$/, '')}${request.path}${request.query ? `?${request.query}` : ''}`;
  const parts = ['curl', '-i', '-X', request.method, shellQuote(url)];
  for (const [name, value] of Object.entries(request.headers ?? {}))
    parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== undefined && request.body !== '') {
    const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
    parts.push('--data-raw', shellQuote(text));
  }
  return parts.join(' ');
}

/** `what`, then the request (as a line and as `curl`) and the response. */
export function exchangeReport(
  what: string,
  request: TargetRequest,
  response?: TargetResponse,
  base?: string,
): string {
  const sent = `${request.method} ${request.path}${request.query ? `?${request.query}` : ''}`;
  return `${what}\nrequest: ${sent}\n  ${curlCommand(request, base)}${response ? `\nresponse: ${describeResponse(response)}` : ''}`;
}

/** Stop a run: `what` is wrong with the answer to `request`. */
export function fail(what: string, request: TargetRequest, response?: TargetResponse, base?: string): never {
  throw new Violation(exchangeReport(what, request, response, base));
}

/**
 * fast-check reports the shrunk input and keeps what the predicate threw as the `cause`: the
 * message carries both, the violation first, and the fast-check seed value that replays the run.
 */
export function withSeed(error: unknown, seed: number): Error {
  if (error instanceof NotApplicable || error instanceof NotChecked) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof NotApplicable || cause instanceof NotChecked) return cause;
  const message = error instanceof Error ? error.message : String(error);
  const why = cause instanceof Error ? `${cause.message}\n` : '';
  return new Error(`${why}${message.includes('seed') ? message : `${message}\n(seed ${seed})`}`);
}
