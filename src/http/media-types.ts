import { parseAccept, preferredMediaType } from './accept.js';
import { refusesJsonApi } from './jsonapi-parameters.js';

/** JSON:API media type (https://jsonapi.org/format/1.1/#content-negotiation). */
export const JSON_API = 'application/vnd.api+json';
/** Plain JSON (RFC 8259). */
export const JSON_MEDIA = 'application/json';
/** RFC 9457 problem details. */
export const PROBLEM_JSON = 'application/problem+json';

/** What a successful response may be sent as, in server preference order. */
export const RESPONSE_MEDIA_TYPES: readonly string[] = Object.freeze([JSON_API, JSON_MEDIA]);

// Media-type parameters (`version`, `charset`, ...) select an API version or restate the encoding;
// they do not name another format, so only the weight `q` is kept when choosing the format. Accept
// values repeat a lot, so decisions are memoized.
const NON_WEIGHT_PARAM = /;\s*(?!q\s*=)[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*)/gi;
const CACHE_LIMIT = 512;
const successCache = new Map<string, string | null>();
const errorCache = new Map<string, string>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/**
 * The offer the client prefers. JSON:API is offered only when `Accept` does not refuse it as
 * JSON:API 1.1 reads its `ext` and `profile` parameters (see `refusesJsonApi`); then the other
 * parameters are set aside, the weight kept.
 */
function preferred(accept: string, offers: readonly string[]): string | undefined {
  const usable =
    offers.includes(JSON_API) && JSON_API_NAMED.test(accept) && refusesJsonApi(parseAccept(accept))
      ? offers.filter((offer) => offer !== JSON_API)
      : offers;
  return preferredMediaType(accept.replace(NON_WEIGHT_PARAM, ''), usable);
}

const JSON_API_NAMED = /vnd\.api\+json/i;

/**
 * The response media type the client prefers among {@link RESPONSE_MEDIA_TYPES} (RFC 9110 section
 * 12.5.1), or `undefined` when none is acceptable (a 406). No `Accept` means JSON:API.
 */
export function negotiateResponseType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '') return JSON_API;
  const cached = successCache.get(accept);
  if (cached !== undefined) return cached ?? undefined;
  const chosen = preferred(accept, RESPONSE_MEDIA_TYPES) ?? null;
  return remember(successCache, accept, chosen) ?? undefined;
}

/**
 * A negotiator over a route's own media types (`produces`), in server preference: returns the one
 * the client prefers (RFC 9110 section 12.5.1), the first for a missing or empty `Accept`, and
 * `undefined` (a 406) when none is acceptable. Parameters other than `q` are ignored, as for
 * {@link negotiateResponseType}; decisions are memoized per `Accept` value.
 */
export function mediaTypeNegotiator(
  offers: readonly string[],
): (accept: string | undefined) => string | undefined {
  if (offers.length === 0 || offers.some((type) => typeof type !== 'string' || !MEDIA_TYPE.test(type))) {
    throw new TypeError(`produces must list media types such as "text/csv", got ${JSON.stringify(offers)}`);
  }
  const list = offers.map((type) => type.toLowerCase());
  const cache = new Map<string, string | null>();
  return (accept) => {
    if (accept === undefined || accept === '') return list[0];
    const cached = cache.get(accept);
    if (cached !== undefined) return cached ?? undefined;
    return remember(cache, accept, preferred(accept, list) ?? null) ?? undefined;
  };
}

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The media type for an error response: problem+json when the client names it (with q > 0) anywhere
 * in `Accept` (RFC 9457 section 3: clients ask for problem details explicitly), else JSON:API or JSON
 * as for success. When nothing is acceptable the error is still sent, as JSON:API (RFC 9110 section
 * 15.5.7 allows an unacceptable representation rather than none).
 */
export function negotiateErrorType(accept: string | undefined): string {
  if (accept === undefined || accept === '') return JSON_API;
  const cached = errorCache.get(accept);
  if (cached !== undefined) return cached;
  const named = parseAccept(accept.replace(NON_WEIGHT_PARAM, ''));
  const chosen = named.some((r) => r.q > 0 && `${r.type}/${r.subtype}`.toLowerCase() === PROBLEM_JSON)
    ? PROBLEM_JSON
    : (preferred(accept, RESPONSE_MEDIA_TYPES) ?? JSON_API);
  return remember(errorCache, accept, chosen);
}
/** The media type of a `Content-Type` value, lower-cased, without parameters. */
export function essence(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
