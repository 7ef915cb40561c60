import type { ApiResponse } from '../http/types.js';
import { validateEtag } from './entity-tag.js';
import { formatHttpDate, parseHttpDate } from './http-date.js';

/** What a route knows cheaply about the current representation, without building it. */
export interface Validators {
  /** A complete entity tag, e.g. `versionEtag(row.version)`. */
  readonly etag?: string;
  /** When the representation last changed. */
  readonly lastModified?: Date | number;
}

export interface NormalizedValidators {
  readonly etag?: string;
  readonly lastModified?: number;
}

/**
 * Validates the tag at once, and keeps `Last-Modified` no later than now (RFC 9110 section 8.8.2.1).
 */
export function normalize(found: Validators, time: number): NormalizedValidators {
  if (found.etag !== undefined) validateEtag(found.etag);
  if (found.lastModified === undefined) return { etag: found.etag };
  const ms = typeof found.lastModified === 'number' ? found.lastModified : found.lastModified.getTime();
  if (!Number.isFinite(ms))
    throw new TypeError(`lastModified must be a valid time, got ${String(found.lastModified)}`);
  return { etag: found.etag, lastModified: Math.min(ms, time) };
}

export function validatorHeaders(state: NormalizedValidators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (state?.etag !== undefined) headers.etag = state.etag;
  if (state?.lastModified !== undefined) headers['last-modified'] = formatHttpDate(state.lastModified);
  return headers;
}

/** A handler-set ETag is a developer's value: a malformed one is reported at once (a 500 and a log line). */
export function checkEtagHeader(response: ApiResponse): void {
  const { etag } = response.headers;
  if (etag !== undefined) validateEtag(etag);
}

export function lastModifiedOf(headers: Record<string, string>, time: number): number | undefined {
  const value = headers['last-modified'];
  if (value === undefined) return undefined;
  const parsed = parseHttpDate(value, time);
  if (parsed === undefined) throw new TypeError(`The handler set an invalid Last-Modified: ${value}`);
  return Math.min(parsed, time);
}
