/**
 * The JSON:API 1.1 media type parameters `ext` and `profile` ("Content Negotiation", server
 * responsibilities): each a space-separated list of URIs. A request body's `Content-Type` naming an
 * extension the server does not support is refused with 415; an `Accept` JSON:API instance with a
 * parameter other than `ext` and `profile`, or an `ext` naming an unsupported extension, cannot be
 * answered, and when no instance can, JSON:API is not acceptable (406). Profiles a server does not
 * recognise are ignored, never refused.
 *
 * One deliberate addition: `version`, the parameter the versioning primitive reads
 * (`application/vnd.api+json;version=2`), is a parameter this server supports too.
 */
import type { MediaRange } from './accept.js';

/** The parameters a JSON:API instance may carry here (JSON:API 1.1, plus `version` for versioning). */
export const JSON_API_PARAMETERS: ReadonlySet<string> = new Set(['ext', 'profile', 'version']);

/** The extensions this library applies: none (JSON:API 1.1 "Extensions", e.g. Atomic Operations). */
const SUPPORTED_EXTENSIONS: ReadonlySet<string> = new Set();

/** The URIs of an `ext` or `profile` value: a space-separated list (JSON:API 1.1 "Media Type Parameters"). */
function uriList(value: string): string[] {
  return value.split(' ').filter((uri) => uri !== '');
}

/** The first extension of `ext` this server does not support, if any. */
export function unsupportedExtension(ext: string | undefined): string | undefined {
  if (ext === undefined) return undefined;
  return uriList(ext).find((uri) => !SUPPORTED_EXTENSIONS.has(uri));
}

/** Whether a JSON:API instance of `Accept` can be answered: only known parameters, every extension supported. */
function answerable(range: MediaRange): boolean {
  for (const name of range.params.keys()) if (!JSON_API_PARAMETERS.has(name)) return false;
  return unsupportedExtension(range.params.get('ext')) === undefined;
}

/**
 * Whether `Accept` refuses JSON:API as JSON:API 1.1 reads it: it names the JSON:API media type, and
 * no instance of it (with q > 0) can be answered. Ranges that name JSON:API only through a wildcard
 * do not count.
 *
 * @example
 * refusesJsonApi(parseAccept('application/vnd.api+json; ext="https://example.com/ext/x"')) // true
 * @see https://jsonapi.org/format/1.1/#content-negotiation-servers
 */
export function refusesJsonApi(ranges: readonly MediaRange[]): boolean {
  let named = false;
  for (const range of ranges) {
    if (range.type !== 'application' || range.subtype !== 'vnd.api+json') continue;
    named = true;
    if (range.q > 0 && answerable(range)) return false;
  }
  return named;
}

/**
 * Whether `Accept` leaves no representation at all once JSON:API is refused: it names JSON:API, no
 * instance of it can be answered ({@link refusesJsonApi}), and every other range it accepts (q > 0)
 * is a JSON:API instance too. Whatever a route would send, JSON:API or another format, is then
 * unacceptable, so a 406 can be decided before the route runs.
 *
 * @example
 * acceptsOnlyRefusedJsonApi(parseAccept('application/vnd.api+json; ext="https://example.com/ext/x"')) // true
 * acceptsOnlyRefusedJsonApi(parseAccept('application/vnd.api+json; ext="https://example.com/ext/x", application/json')) // false
 */
export function acceptsOnlyRefusedJsonApi(ranges: readonly MediaRange[]): boolean {
  return (
    refusesJsonApi(ranges) &&
    ranges.every(
      (range) => !(range.q > 0) || (range.type === 'application' && range.subtype === 'vnd.api+json'),
    )
  );
}
