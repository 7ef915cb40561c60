import { trimOws } from '../http/field-syntax.js';
/**
 * Entity tags (RFC 9110 section 8.8.3): parsing, formatting and the two comparison functions.
 *
 * ```
 * entity-tag = [ weak ] opaque-tag        weak = %s"W/"
 * opaque-tag = DQUOTE *etagc DQUOTE       etagc = %x21 / %x23-7E / obs-text
 * ```
 */

/** One entity tag: `W/"abc"` is `{ weak: true, opaque: 'abc' }` (the opaque part without its quotes). */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** A parsed `If-Match` / `If-None-Match` value: `*`, or the tags of the list (possibly none). */
export type EntityTagList = '*' | readonly EntityTag[];

// etagc: any visible character except DQUOTE, plus obs-text (%x80-FF).
const OPAQUE = /^[\x21\x23-\x7e\x80-\xff]*$/;
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * Parse one entity tag, or `undefined` when it does not follow the grammar (`W/` is case-sensitive).
 * @example parseEntityTag('W/"v1"') // { weak: true, opaque: 'v1' }
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3
 */
export function parseEntityTag(text: string): EntityTag | undefined {
  const match = ENTITY_TAG.exec(trimOws(text));
  if (match === null) return undefined;
  return { weak: match[1] !== undefined, opaque: match[2]! };
}

/**
 * Parse an `If-Match` / `If-None-Match` field value (`"*" / #entity-tag`, RFC 9110 sections 13.1.1-2).
 * Commas inside quotes belong to the tag; optional whitespace and empty list members (RFC 9110
 * section 5.6.1.2) are skipped; a member that is not an entity tag is ignored. `*` is a wildcard only
 * as the whole value.
 *
 * @example parseEntityTagList(' "a,b" , ,W/"c"') // [{ weak: false, opaque: 'a,b' }, { weak: true, opaque: 'c' }]
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1
 */
export function parseEntityTagList(value: string): EntityTagList {
  if (trimOws(value) === '*') return '*';
  const tags: EntityTag[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= value.length; i++) {
    const char = value[i];
    if (char === '"') quoted = !quoted;
    else if (char === undefined || (char === ',' && !quoted)) {
      const tag = parseEntityTag(value.slice(start, i));
      if (tag !== undefined) tags.push(tag);
      start = i + 1;
    }
  }
  return tags;
}

/**
 * Whether a `*` appears in a list with other members (`*, "1"`, `"1", *`, `*, *`). The grammar is
 * `"*" / #entity-tag` (RFC 9110 sections 13.1.1-2): `*` stands alone, so such a value is malformed
 * and a server answers 400 rather than guess which reading the client meant.
 *
 * @example misplacedWildcard('*, "1"') // true
 * @example misplacedWildcard(' * ') // false
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1
 */
export function misplacedWildcard(value: string): boolean {
  if (!value.includes('*') || trimOws(value) === '*') return false;
  let start = 0;
  let quoted = false;
  for (let i = 0; i <= value.length; i++) {
    const char = value[i];
    if (char === '"') quoted = !quoted;
    else if (char === undefined || (char === ',' && !quoted)) {
      if (trimOws(value.slice(start, i)) === '*') return true;
      start = i + 1;
    }
  }
  return false;
}

/**
 * The field value for a tag list: `*`, or the tags joined with `", "`.
 * @example serializeEntityTagList([{ weak: true, opaque: 'v1' }]) // 'W/"v1"'
 */
export function serializeEntityTagList(list: EntityTagList): string {
  return list === '*' ? '*' : list.map(serializeEntityTag).join(', ');
}

/** `W/"opaque"` or `"opaque"`. */
export function serializeEntityTag(tag: EntityTag): string {
  return `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
}

/**
 * Strong comparison (RFC 9110 section 8.8.3.2): neither tag is weak and the opaque tags are equal.
 * Used by `If-Match`.
 * @example strongMatch({ weak: false, opaque: 'a' }, { weak: true, opaque: 'a' }) // false
 */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/**
 * Weak comparison (RFC 9110 section 8.8.3.2): the opaque tags are equal, weak or not.
 * Used by `If-None-Match`.
 * @example weakMatch({ weak: false, opaque: 'a' }, { weak: true, opaque: 'a' }) // true
 */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

/**
 * Quote an opaque value into an entity tag. A character outside `etagc` (a space, a `"`, a control
 * character) is a programming error and throws a TypeError at once.
 * @example formatEtag('v7') // '"v7"'; formatEtag('v7', { weak: true }) // 'W/"v7"'
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3
 */
export function formatEtag(opaque: string, options: { readonly weak?: boolean } = {}): string {
  if (typeof opaque !== 'string' || !OPAQUE.test(opaque)) {
    throw new TypeError(
      `An entity tag may contain only visible characters other than '"'; got ${JSON.stringify(opaque)}`,
    );
  }
  return `${options.weak === true ? 'W/' : ''}"${opaque}"`;
}

/**
 * Check a complete entity tag a developer supplies (`"v7"` or `W/"v7"`) and return it parsed. An
 * unquoted or malformed tag throws a TypeError at once rather than reaching a client.
 * @example validateEtag('"v7"') // { weak: false, opaque: 'v7' }; validateEtag('v7') // throws TypeError
 */
export function validateEtag(tag: string): EntityTag {
  // A route checks the same few tags over and over (its own, then again on the response).
  if (tag === lastValidated.tag) return lastValidated.parsed;
  const parsed = typeof tag === 'string' ? ENTITY_TAG.exec(tag) : null;
  if (parsed === null) {
    throw new TypeError(
      `Not an entity tag: ${JSON.stringify(tag)}. ETags are quoted ("v7") or weak (W/"v7"); use formatEtag() to quote one.`,
    );
  }
  const result = Object.freeze({ weak: parsed[1] !== undefined, opaque: parsed[2]! });
  lastValidated = { tag, parsed: result };
  return result;
}

let lastValidated: { readonly tag: string; readonly parsed: EntityTag } = {
  tag: '""',
  parsed: Object.freeze({ weak: false, opaque: '' }),
};

/**
 * An ETag from a version the handler already knows (a row version, an update counter, a content
 * hash kept with the record): nothing is serialized or hashed, so a 304 or 412 can be answered
 * before the handler runs. Each change of the representation must change the version.
 * @example versionEtag(order.version) // '"7"'
 */
export function versionEtag(
  version: string | number | bigint,
  options: { readonly weak?: boolean } = {},
): string {
  if (typeof version === 'number' && !Number.isFinite(version)) {
    throw new TypeError(`A version must be a finite number, got ${version}`);
  }
  // Digits, '-', '.', 'e' and '+' are all etagc: a number needs no check.
  if (typeof version !== 'string') return options.weak === true ? `W/"${version}"` : `"${version}"`;
  return formatEtag(version, options);
}
