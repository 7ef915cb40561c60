import { codedError } from '../errors/coded-error.js';
import type { Context, Handler, Middleware, Params, RouteFacts } from '../http/types.js';
import {
  checkNamingRules,
  type NamingRules,
  type NamingWarning,
  type ParamsOf,
  parsePattern,
  trimTrailingSlash,
} from './route-pattern.js';
import { allowField } from './unmatched.js';

/** What the router stores for a route: one method on one path pattern, its middleware and handler. */
export interface RouterRoute<P extends string = string> {
  readonly method: string;
  /** `/books/{id}`: `{name}` segments become typed `ctx.params`. */
  readonly path: P;
  /** Route middleware, run after the application's, outermost first. */
  readonly use?: readonly Middleware<Context<ParamsOf<P>>>[];
  readonly handler: Handler<Context<ParamsOf<P>>>;
  /** What every layer may read about the route (`ctx.route`). */
  readonly facts?: RouteFacts;
  /** The route's own response media type negotiation, when it declares its media types. */
  readonly negotiate?: ((accept: string | undefined) => string | undefined) | undefined;
}

/** What the router knows about a matched route. */
export interface RouteEntry {
  readonly method: string;
  readonly pattern: string;
  readonly paramNames: readonly string[];
  /** Index in the split path (`path.split('/')`) of each parameter, in `paramNames` order. */
  readonly paramPositions: readonly number[];
  readonly use: readonly Middleware[];
  readonly handler: Handler;
  readonly facts: RouteFacts | undefined;
  readonly negotiate: ((accept: string | undefined) => string | undefined) | undefined;
}

/** The result of matching a method and path. */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: RouteEntry; readonly params: Params }
  | { readonly kind: 'method-not-allowed'; readonly allow: string }
  | { readonly kind: 'options'; readonly allow: string }
  | { readonly kind: 'not-found' };

class TrieNode {
  readonly children = new Map<string, TrieNode>();
  param: TrieNode | undefined = undefined;
  paramName: string | undefined = undefined;
  readonly routes = new Map<string, RouteEntry>();
  allow = '';
}

const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not-found' });
const METHOD = /^[A-Z]+$/;

/**
 * Matches method + path in time proportional to the path's segments, not the number of routes: a trie
 * of static segments with one parameter branch per level (static segments win over parameters).
 * HEAD is served by GET when no HEAD route exists; OPTIONS is answered with `Allow`.
 */
export class Router {
  private readonly root = new TrieNode();

  constructor(
    private readonly naming: NamingRules = {},
    private readonly warn?: NamingWarning,
  ) {
    checkNamingRules(naming);
  }

  add<P extends string>(definition: RouterRoute<P>): RouteEntry {
    const method = definition.method.toUpperCase();
    if (!METHOD.test(method)) throw new TypeError(`Invalid HTTP method: ${definition.method}`);
    const segments = parsePattern(definition.path, this.naming, this.warn);
    let node = this.root;
    const paramNames: string[] = [];
    const paramPositions: number[] = [];
    for (const [index, segment] of segments.entries()) {
      if (segment.kind === 'static') {
        let child = node.children.get(segment.value);
        if (!child) {
          child = new TrieNode();
          node.children.set(segment.value, child);
        }
        node = child;
      } else {
        if (node.param && node.paramName !== segment.name) {
          throw new TypeError(
            `Route ${definition.path} names parameter {${segment.name}} where another route uses {${node.paramName}}`,
          );
        }
        node.param ??= new TrieNode();
        node.paramName = segment.name;
        paramNames.push(segment.name);
        paramPositions.push(index + 1);
        node = node.param;
      }
    }
    if (node.routes.has(method))
      throw new TypeError(`Route ${method} ${definition.path} is registered twice`);
    const entry: RouteEntry = {
      method,
      pattern: definition.path,
      paramNames,
      paramPositions,
      use: (definition.use ?? []) as readonly Middleware[],
      handler: definition.handler as Handler,
      facts: definition.facts,
      negotiate: definition.negotiate,
    };
    node.routes.set(method, entry);
    node.allow = allowHeader(node.routes);
    return entry;
  }

  match(method: string, path: string): RouteMatch {
    // Only origin-form targets name a resource here (`*` and absolute-form are not routes).
    if (path.charCodeAt(0) !== 47) return NOT_FOUND;
    const parts = trimTrailingSlash(path).split('/');
    const node = parts.length === 2 && parts[1] === '' ? this.root : find(this.root, parts, 1);
    if (node === undefined || node.routes.size === 0) return NOT_FOUND;
    const route = node.routes.get(method) ?? (method === 'HEAD' ? node.routes.get('GET') : undefined);
    if (route !== undefined) return { kind: 'found', route, params: paramsOf(route, parts) };
    if (method === 'OPTIONS') return { kind: 'options', allow: node.allow };
    return { kind: 'method-not-allowed', allow: node.allow };
  }
}

/** Depth-first: a static segment is tried before the parameter branch, which is tried on a miss. */
function find(node: TrieNode, parts: readonly string[], index: number): TrieNode | undefined {
  if (index === parts.length) return node.routes.size > 0 ? node : undefined;
  const segment = parts[index]!;
  if (segment === '') return undefined;
  const child = node.children.get(segment);
  if (child !== undefined) {
    const found = find(child, parts, index + 1);
    if (found !== undefined) return found;
  }
  return node.param === undefined ? undefined : find(node.param, parts, index + 1);
}

function paramsOf(route: RouteEntry, parts: readonly string[]): Params {
  const names = route.paramNames;
  if (names.length === 0) return EMPTY;
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    params[names[i]!] = decodeSegment(parts[route.paramPositions[i]!]!, names[i]!);
  }
  return params;
}

const EMPTY: Params = Object.freeze({});

function decodeSegment(raw: string, name: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw codedError(400, 'invalid-path', {
      detail: `Path parameter "${name}" is not valid percent-encoding.`,
      source: { parameter: name },
    });
  }
}

function allowHeader(routes: Map<string, RouteEntry>): string {
  return allowField(routes.keys());
}
