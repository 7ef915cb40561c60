/**
 * The query content of a QUERY request (RFC 10008): which media types a resource takes as a query,
 * said in the `Accept-Query` response field (section 3), and the decision on a request's
 * `Content-Type` (section 2.1): none is a 400 (the content means nothing without it), one the
 * resource does not take is a 415, and the content is never sniffed to guess one.
 */
import { essence } from './media-types.js';
import { isToken, parseItemList } from './structured-fields.js';

/**
 * The `Accept-Query` field value for the media types a resource takes as query content: a Structured
 * Field List (RFC 9651 section 3.1) of media types without parameters, each a Token, or a String where
 * it is not one (a leading digit); the order is not significant (RFC 10008 section 3).
 *
 * @example acceptQueryField(['application/json']) // 'application/json'
 */
export function acceptQueryField(mediaTypes: readonly string[]): string {
  if (mediaTypes.length === 0) throw new TypeError('acceptQueryField: name at least one media type');
  return mediaTypes
    .map((mediaType) => {
      const type = essence(mediaType);
      if (!/^[\x21-\x7e]+\/[\x21-\x7e]+$/.test(type) || type.includes('"') || type.includes('\\'))
        throw new TypeError(`acceptQueryField: not a media type: ${JSON.stringify(mediaType)}`);
      return isToken(type) ? type : `"${type}"`;
    })
    .join(', ');
}

/**
 * The media types an `Accept-Query` field lists, essences (RFC 10008 section 3: a Structured Field
 * List of Tokens or Strings, read by the project's RFC 9651 reader); none when it is not such a list.
 *
 * @example acceptQueryTypes('application/json, "application/x-www-form-urlencoded"') // both
 */
export function acceptQueryTypes(field: string): string[] {
  const types: string[] = [];
  for (const [item] of parseItemList(field) ?? []) {
    const type = typeof item === 'string' ? essence(item) : '';
    if (type !== '') types.push(type);
  }
  return types;
}

/** What a QUERY request's `Content-Type` says about its content (RFC 10008 section 2.1). */
export type QueryContentDecision =
  | { readonly outcome: 'accepted'; readonly mediaType: string }
  /** No media type: the request is incorrect by definition (400). */
  | { readonly outcome: 'missing' }
  /** A media type the resource does not take as a query (415, with `Accept-Query`). */
  | { readonly outcome: 'unsupported'; readonly mediaType: string };

/**
 * Decide on a QUERY request's `Content-Type` against the media types the resource takes (essences,
 * lower case). An empty field value counts as missing.
 *
 * @example decideQueryContent('application/json; charset=utf-8', ['application/json']) // accepted
 */
export function decideQueryContent(
  contentType: string | undefined,
  accepted: readonly string[],
): QueryContentDecision {
  const mediaType = contentType === undefined ? '' : essence(contentType);
  if (mediaType === '') return { outcome: 'missing' };
  return accepted.includes(mediaType)
    ? { outcome: 'accepted', mediaType }
    : { outcome: 'unsupported', mediaType };
}
