/**
 * The refusals of an ownership check (docs/ownership.md), built here once: the 404 that says the same
 * for an absent record and someone else's (RFC 9110 section 15.5.5 allows hiding a resource's
 * existence), and the 403 for a caller the access rule refuses.
 */
import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { echo } from '../errors/echo.js';

/** 404 for the `noun` with `id`: a function of (noun, id) only, so absent and foreign cannot differ. */
export function noSuchRecordError(noun: string, id: string): ApiError {
  return codedError(404, 'not-found', { detail: `No ${noun} with id ${JSON.stringify(echo(id))}.` });
}

/** 403: the principal may not act on this `noun` (the access rule refused, or a scope is missing). */
export function forbiddenError(noun: string): ApiError {
  return codedError(403, 'forbidden', { detail: `You may not access this ${noun}.` });
}
