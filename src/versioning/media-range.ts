/**
 * One element of an `Accept` header (RFC 9110 section 12.5.1): a media range, its parameters and its
 * weight.
 */

import { mediaTypeParameters, splitOutsideQuotes } from '../core/media-type-parameters.js';
import { HTTP_TOKEN } from '../http/field-syntax.js';
export interface MediaRange {
  /** Lower-cased type, `*` for a wildcard. */
  readonly type: string;
  /** Lower-cased subtype, `*` for a wildcard. */
  readonly subtype: string;
  /** Parameters other than `q`, names lower-cased (RFC 9110 section 5.6.6), quoted values unescaped. */
  readonly params: ReadonlyMap<string, string>;
  /** The weight (RFC 9110 section 12.4.2), 1 when absent; 0 means "not acceptable". */
  readonly q: number;
}

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Parse an `Accept` field value into media ranges, in header order.
 *
 * Commas and semicolons inside quoted strings are respected, parameter names are case-insensitive,
 * and whitespace around `,`, `;` and `=` is ignored. Elements that are not a media range (no `/`,
 * a non-token type, a malformed weight) are skipped, as a lenient recipient may (RFC 9110 section 5.6.1).
 *
 * @example
 * parseAccept('application/json; Version="2"; q=0.5, text/*;q=0.1');
 * // [{ type: 'application', subtype: 'json', params: Map { 'version' => '2' }, q: 0.5 }, ...]
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1
 */
export function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of splitOutsideQuotes(accept, ',')) {
    const range = parseElement(element);
    if (range !== undefined) ranges.push(range);
  }
  return ranges;
}

function parseElement(element: string): MediaRange | undefined {
  const [mediaType = ''] = splitOutsideQuotes(element, ';');
  const slash = mediaType.indexOf('/');
  if (slash === -1) return undefined;
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (!HTTP_TOKEN.test(type) || !HTTP_TOKEN.test(subtype) || (type === '*' && subtype !== '*'))
    return undefined;
  const params = mediaTypeParameters(element);
  if (params === undefined) return undefined;
  const weight = params.get('q');
  params.delete('q');
  if (weight !== undefined && !QVALUE.test(weight)) return undefined;
  return { type, subtype, params, q: weight === undefined ? 1 : Number(weight) };
}
