/**
 * Links a route declares on a response, by relation name and target route, with their parameters
 * taken from the response's resource (`linkTo`): each link checks itself where its route is declared
 * and against its target once every route is (a `TypeError` naming both routes), builds its URL from
 * each response, and is described as an OpenAPI Link Object (OpenAPI 3.1 section 4.8.20). The app
 * only calls these, so an app that declares no link does not load this module (the size budget).
 * See docs/core.md, "Declared links".
 */
import type { ParamsOf } from './route-pattern.js';
import { patternParams, type RouteTarget, targetUrl } from './route-target.js';

/** Where a link's value comes from in the response document: its resource's `id` or one attribute. */
export type ResponseValue = 'data.id' | `data.attributes.${string}`;

/** A query parameter's value: from the response's resource, or the same text on every response. */
export type QueryValue = ResponseValue | { readonly value: string };

/** What a link reads of its target route (an `app.routes()` entry) to check that it fits. */
export interface LinkedRoute {
  readonly method: string;
  readonly pattern: string;
  readonly query: Readonly<Record<string, { decode(value: unknown): { readonly _tag: string } }>> | undefined;
}

/**
 * A link a response carries: the route it leads to, each of that route's path parameters from the
 * response's resource, and query parameters the target declares. Made by {@link linkTo}.
 */
export interface ResponseLink {
  /** The declared route it leads to. */
  readonly target: RouteTarget;
  /** Each of the target's path parameters, from the response's resource. */
  readonly params: Readonly<Record<string, ResponseValue>>;
  /** Query parameters the target declares, in URL order. */
  readonly query: Readonly<Record<string, QueryValue>>;
  /** What following it does (the OpenAPI Link Object's `description`). */
  readonly description?: string;
  /** What is wrong with it on a response of this kind, where its route is declared; `undefined`: nothing. */
  problemOn(collection: boolean): string | undefined;
  /** What is wrong with it against its target, once every route is declared; `undefined`: nothing. */
  problemWith(target: LinkedRoute): string | undefined;
  /** Its app-relative URL, from the response's primary resource (`{}` for a collection). */
  href(resource: object): string;
}

/** A link's parameters, typed by its target's pattern: every `{param}` named, no other. */
export type LinkParameters<P extends string> = (keyof ParamsOf<P> extends never
  ? { readonly params?: Readonly<Record<string, never>> }
  : { readonly params: { readonly [K in keyof ParamsOf<P>]: ResponseValue } }) & {
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly description?: string;
};

/**
 * A declared link to `target`, for a response's `links`: its path parameters typed by the target's
 * pattern.
 *
 * @example
 * responses: { 201: { description: 'The order', links: {
 *   payment: linkTo(ORDER_PAYMENTS, { params: { id: 'data.id' }, query: { discount: { value: 'WELCOME10' } } }),
 * } } }
 */
export function linkTo<const P extends string>(
  target: RouteTarget<P>,
  ...[parameters]: keyof ParamsOf<P> extends never ? [LinkParameters<P>?] : [LinkParameters<P>]
): ResponseLink {
  const { params = {}, query = {}, description } = (parameters ?? {}) as LinkParameters<string>;
  // The declaration is fixed: its entries are listed once, not on every response linked.
  const paramSources = Object.entries(params as Readonly<Record<string, ResponseValue>>);
  const querySources = Object.entries(query);
  const link: ResponseLink = {
    target,
    params: params as Readonly<Record<string, ResponseValue>>,
    query,
    ...(description === undefined ? {} : { description }),
    problemOn: (collection) => declarationProblem(link, collection),
    problemWith: (route) => targetProblem(link, route),
    href: (resource) => linkUrl(link, paramSources, querySources, resource),
  };
  return Object.freeze(link);
}

const VALUE = /^data\.(?:id|attributes\.[^.]+)$/;

function declarationProblem(link: ResponseLink, collection: boolean): string | undefined {
  const { target, params, query } = link;
  if (typeof target?.method !== 'string' || typeof target.path !== 'string')
    return 'its target must name a route (routeTarget)';
  const name = `${target.method} ${target.path}`;
  let needed: string[];
  try {
    needed = patternParams(target.path);
  } catch (error) {
    return (error as Error).message;
  }
  for (const param of needed)
    if (!(param in params)) return `${name} needs {${param}}, which the link does not give`;
  for (const param of Object.keys(params))
    if (!needed.includes(param)) return `${name} has no path parameter {${param}}`;
  const values = [...Object.entries(params), ...Object.entries(query)] as [string, unknown][];
  for (const [param, value] of values) {
    if (param in query && typeof (value as { value?: unknown })?.value === 'string') continue;
    if (typeof value !== 'string' || !VALUE.test(value))
      return `${param} must be 'data.id', 'data.attributes.<name>' or, in query, { value: '...' }`;
    if (collection) return `${param} is taken from the response's resource, but the response is a collection`;
  }
  if (link.description !== undefined && typeof link.description !== 'string')
    return 'its description must be a string';
  return undefined;
}

function targetProblem(link: ResponseLink, route: LinkedRoute): string | undefined {
  const name = `${route.method} ${route.pattern}`;
  for (const [param, value] of Object.entries(link.query)) {
    const codec = route.query?.[param];
    if (codec === undefined) return `${name} declares no query parameter ${param}`;
    if (typeof value === 'object' && codec.decode(value.value)._tag === 'Left')
      return `${name} refuses ${param}=${JSON.stringify(value.value)}`;
  }
  return undefined;
}

/**
 * A value the resource lacks is a `TypeError` (a 500: the route broke its own declaration), except
 * in the query, where the parameter is left out.
 */
function linkUrl(
  link: ResponseLink,
  paramSources: readonly [string, ResponseValue][],
  querySources: readonly [string, QueryValue][],
  data: object,
): string {
  const params: Record<string, string | number> = {};
  for (const [param, from] of paramSources) {
    const value = valueAt(data, from);
    if (value === undefined)
      throw new TypeError(
        `${link.target.method} ${link.target.path}: the response's resource has no ${from} for {${param}}`,
      );
    params[param] = value;
  }
  const query: Record<string, string | number | undefined> = {};
  for (const [param, from] of querySources)
    query[param] = typeof from === 'object' ? from.value : valueAt(data, from);
  return targetUrl(link.target, params, query);
}

function valueAt(resource: object, from: ResponseValue): string | number | undefined {
  const { id, attributes } = resource as { id?: unknown; attributes?: Record<string, unknown> };
  const value = from === 'data.id' ? id : attributes?.[from.slice('data.attributes.'.length)];
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}
