/**
 * The answers to a request no route takes, shared by the core router and the framework adapters'
 * not-found handlers: 404 for an unknown path, 405 with `Allow` for a known path and another method
 * (RFC 9110 sections 15.5.5, 15.5.6 and 10.2.1), and the `Allow` of an OPTIONS request.
 */

import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { echo } from '../errors/echo.js';

/** The `Allow` field for a path's methods: HEAD with GET, OPTIONS always, sorted. */
export function allowField(methods: Iterable<string>): string {
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD');
  all.add('OPTIONS');
  return [...all].sort().join(', ');
}

/** 404: no resource exists at the path. */
export function notFoundError(): ApiError {
  return codedError(404, 'not-found', { detail: 'No resource exists at this path.' });
}

/** 405: the path exists, the method does not; `allow` lists what does. */
export function methodNotAllowedError(method: string, allow: string): ApiError {
  return codedError(405, 'method-not-allowed', {
    detail: `${echo(method)} is not allowed here; allowed: ${allow}.`,
    headers: { allow },
  });
}
