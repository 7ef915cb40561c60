/**
 * The request target and the `Host` field, read as RFC 9112 section 3.2 reads them, on plain
 * values: so that every adapter answers the same bytes the same way, whether its framework or
 * runtime resolves the target (the WHATWG URL parser does) or leaves it raw (node does). See
 * docs/security.md, "The request target".
 */

/** `http://host` or `https://host` (no userinfo) at the start of an absolute-form target. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#@]*(?=[/?#]|$)/i;

/**
 * The origin-form of a request target: an absolute-form target (`http://example.com/books?x`,
 * RFC 9112 section 3.2.2, which a server MUST accept) as its path and query (`/books?x`); any other
 * target as it is.
 *
 * @example originForm('http://example.com/books?page=2'); // '/books?page=2'
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 47) return target;
  const authority = ABSOLUTE_FORM.exec(target);
  if (authority === null) return target;
  const rest = target.slice(authority[0].length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}

/**
 * `Host = uri-host [ ":" port ]` (RFC 9110 section 7.2, RFC 3986 section 3.2.2): an IP literal, or
 * a name of unreserved characters, sub-delimiters and percent-escapes, but no comma: a comma is what
 * joins two `Host` field lines, and no host name has one.
 */
const HOST = /^(?:\[[\da-f:.]+\]|[\w\-.~!$&'()*+;=%]+)(?::\d*)?$/i;

/** A dot segment (`.` or `..`, either dot also as `%2e`), RFC 3986 section 3.3, anywhere in a path. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/** What a request's target and `Host` come to, when they are not simply routed. */
export type TargetDecision =
  /**
   * Dot segments: the same resource as the path without them (RFC 9110 section 4.2.3), which the
   * client is sent to (308, RFC 9110 section 15.4.9), so every request reaches a resource by its
   * normal path, whichever router or filter sits in front.
   */
  | { readonly kind: 'normalize'; readonly location: string }
  /**
   * 400: two `Host` fields or an invalid one (RFC 9112 section 3.2), `source` naming it; or a
   * target that names no resource here.
   */
  | {
      readonly kind: 'refuse';
      readonly code: 'invalid-header' | 'invalid-target';
      readonly detail: string;
      readonly source?: { readonly header: 'Host' };
    };

/** The facts {@link decideRequestTarget} reads: a request view's own fields. */
export interface TargetFacts {
  /** The raw path, origin-form, relative to `mountPath`. */
  readonly path: string;
  readonly search: string;
  /** The `Host` field, repeated lines joined by `", "`, or `undefined` when absent. */
  readonly host: string | undefined;
  readonly mountPath?: string | undefined;
}

/**
 * How to answer a request's target and `Host`: route it (`undefined`), send the client to its path
 * without dot segments, or refuse it with 400. One answer for every adapter (docs/security.md):
 *
 * - two `Host` fields, or one that is not a host (`a b`, `x/y`, empty): 400 (RFC 9112 section 3.2);
 * - absolute-form is routed by its path, as its origin-form (the adapters pass it through
 *   {@link originForm}); any other scheme, userinfo, or `*` (asterisk-form: this server answers no
 *   server-wide OPTIONS) is a target naming no resource here: 400;
 * - a fragment (`#`, which a request target never carries, RFC 9112 section 3.2) or a backslash in
 *   the path (not a URI character; the WHATWG parser reads it as `/`): 400;
 * - dot segments (`/x/../books`, `/%2e%2e/books`, `/books/./1`): 308 to the path without them
 *   (RFC 3986 section 5.2.4), query kept.
 *
 * @example
 * decideRequestTarget({ path: '/x/../books', search: '', host: 'api.example' });
 * // { kind: 'normalize', location: '/books' }
 */
export function decideRequestTarget(facts: TargetFacts): TargetDecision | undefined {
  const { host, path, search } = facts;
  if (host !== undefined && !HOST.test(host)) {
    return {
      kind: 'refuse',
      code: 'invalid-header',
      detail: 'Send one Host field, naming a host (RFC 9112 section 3.2).',
      source: { header: 'Host' },
    };
  }
  if (path.charCodeAt(0) !== 47 || /[#\\]/.test(path) || search.includes('#')) {
    return {
      kind: 'refuse',
      code: 'invalid-target',
      detail: 'Send a path, or an http or https URI, without a fragment (RFC 9112 section 3.2).',
    };
  }
  if (!DOT_SEGMENT.test(path)) return undefined;
  // The whole path, mount point included: a `..` may lead out of it.
  const normal = removeDotSegments(`${facts.mountPath ?? ''}${path}`);
  return { kind: 'normalize', location: search === '' ? normal : `${normal}?${search}` };
}

/** A whole segment of one or two dots, either written `%2e`. */
const DOTS = /^(?:\.|%2e){1,2}$/i;

/**
 * An absolute path without its dot segments (RFC 3986 section 5.2.4): `.` is dropped, `..` drops
 * the segment before it (never above the root), and a path that ended in one ends in `/`.
 *
 * @example removeDotSegments('/a/b/../c/./d'); // '/a/c/d'
 */
export function removeDotSegments(path: string): string {
  const input = path.split('/');
  const output: string[] = [];
  for (let i = 1; i < input.length; i++) {
    const segment = input[i]!;
    if (!DOTS.test(segment)) output.push(segment);
    else {
      // `.` and `%2e` are one dot; `..`, `.%2e`, `%2e.` and `%2e%2e` two.
      if (segment.length !== 1 && segment.length !== 3) output.pop();
      if (i === input.length - 1) output.push('');
    }
  }
  return `/${output.join('/')}`;
}
