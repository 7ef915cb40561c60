/**
 * A declared route named as the target of a link, and the app-relative URL of one of its resources:
 * path parameters percent-encoded as path segments (RFC 3986 section 3.3), query parameters as the
 * query component (section 3.4). The mount prefix is applied where every link of a response is
 * (`underMountPath`); a version segment is part of the target's pattern (`/api/v1/standards/{id}`).
 */
import { type ParamsOf, parsePattern } from './route-pattern.js';

/**
 * A route by its method and path pattern, declared once and used both to declare the route
 * (`defineRoute({ ...ORDER, ... })`) and to link to it, so a link never spells a path by hand.
 *
 * @example
 * export const ORDER = routeTarget('GET', '/orders/{id}');
 * defineRoute({ ...ORDER, handler: ... });
 * targetUrl(ORDER, { id: order.id }); // '/orders/7'
 */
export interface RouteTarget<P extends string = string> {
  /** Upper-case method. */
  readonly method: string;
  readonly path: P;
}

/** Values for a target's path parameters (and query parameters): strings or numbers. */
export type TargetValues<P extends string> = { readonly [K in keyof ParamsOf<P>]: string | number };

/** Names a route as a link target; the pattern is checked as `app.route` checks it (a `TypeError`). */
export function routeTarget<const P extends string>(method: string, path: P): RouteTarget<P> {
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
    throw new TypeError(`routeTarget: method must be an HTTP method, got ${JSON.stringify(method)}`);
  parsePattern(path, { enforce: false });
  return Object.freeze({ method: method.toUpperCase(), path });
}

/** The names of a pattern's `{params}`, in path order. */
export function patternParams(pattern: string): string[] {
  return parsePattern(pattern, { enforce: false }).flatMap((s) => (s.kind === 'param' ? [s.name] : []));
}

/**
 * The app-relative URL of `target` with these path parameters and, optionally, query parameters (in
 * the order given; `undefined` ones left out). Every byte but the unreserved characters is
 * percent-encoded (RFC 3986 section 2.3), so a value never adds a segment, a query or a fragment. A
 * missing or empty path parameter is a `TypeError`: it would name another resource.
 */
export function targetUrl<P extends string>(
  target: RouteTarget<P>,
  params: TargetValues<P>,
  query?: Readonly<Record<string, string | number | undefined>>,
): string {
  const values = params as Readonly<Record<string, string | number | undefined>>;
  const { texts, names } = templateOf(target);
  let url = texts[0]!;
  for (let i = 0; i < names.length; i++) {
    const value = values[names[i]!];
    if (value === undefined || value === '')
      throw new TypeError(`targetUrl: ${target.method} ${target.path} needs a value for {${names[i]}}`);
    url += percentEncoded(String(value)) + texts[i + 1];
  }
  if (query === undefined) return url;
  const pairs: string[] = [];
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (value !== undefined) pairs.push(`${percentEncoded(name)}=${percentEncoded(String(value))}`);
  }
  return pairs.length === 0 ? url : `${url}?${pairs.join('&')}`;
}

/**
 * A target's URL as fixed text around its parameters: `texts[0] + names[0] + texts[1] + ...`, each
 * name standing for its encoded value.
 */
interface UrlTemplate {
  readonly texts: readonly string[];
  readonly names: readonly string[];
}

/** Each target's template, made once: a link is built on every response that carries it. */
const templates = new WeakMap<RouteTarget, UrlTemplate>();

function templateOf(target: RouteTarget): UrlTemplate {
  let template = templates.get(target);
  if (template === undefined) {
    const texts: string[] = [];
    const names: string[] = [];
    let text = '';
    for (const segment of parsePattern(target.path, { enforce: false })) {
      if (segment.kind === 'static') {
        text += `/${segment.value}`;
        continue;
      }
      texts.push(`${text}/`);
      names.push(segment.name);
      text = '';
    }
    // The pattern's trailing slash is how the route is registered and linked (`/api/v1/standards/`).
    if ((text === '' && names.length === 0) || target.path.endsWith('/')) text += '/';
    texts.push(text);
    template = { texts, names };
    templates.set(target, template);
  }
  return template;
}

/** Text that percent-encoding leaves as it is: ALPHA, DIGIT and `-._~` (RFC 3986 section 2.3). */
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Every UTF-8 byte but ALPHA, DIGIT and `-._~` as `%XX` (RFC 3986 sections 2.1 and 2.3); a lone
 * surrogate as U+FFFD, as the WHATWG URL parser writes it.
 */
function percentEncoded(value: string): string {
  if (UNRESERVED.test(value)) return value;
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
