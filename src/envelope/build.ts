import { canonicalPath } from '../http/canonical-path.js';
import type { Context } from '../http/types.js';

/** What a link is built from: the request and the matched route's pattern (any route's context). */
export type LinkContext = Pick<Context, 'request' | 'routePattern'>;

import type {
  Attributes,
  DataDocument,
  Link,
  Links,
  Meta,
  PrimaryData,
  Relationship,
  ResourceIdentifier,
  ResourceObject,
} from './types.js';

/** A to-one relationship; `null` is the empty linkage. */
export function toOne(
  identifier: ResourceIdentifier | null,
  links?: { readonly self?: Link; readonly related?: Link },
): Relationship {
  return links === undefined ? { data: identifier } : { data: identifier, links };
}

/** A to-many relationship; `[]` is the empty linkage. */
export function toMany(
  identifiers: readonly ResourceIdentifier[],
  links?: { readonly self?: Link; readonly related?: Link },
): Relationship {
  return links === undefined ? { data: identifiers } : { data: identifiers, links };
}

/** A relationship known only by its links (no linkage is loaded). */
export function relatedLink(related: string): Relationship {
  return { links: { related } };
}

export interface DocumentOptions {
  readonly included?: readonly ResourceObject[];
  readonly links?: Links;
  readonly meta?: Meta;
}

const key = (r: ResourceIdentifier) => `${r.type}\u0000${r.id}`;

/**
 * A document with primary data. `included` is deduplicated by (type, id) and never repeats a
 * primary resource (JSON:API 1.0 "Compound Documents").
 *
 * @example dataDocument(book, { links: { self: '/books/1' } })
 */
export function dataDocument<D extends PrimaryData>(data: D, options: DocumentOptions = {}): DataDocument<D> {
  const document: { data: D; included?: readonly ResourceObject[]; links?: Links; meta?: Meta } = { data };
  if (options.included !== undefined) {
    const seen = new Set<string>();
    const primaries = data === null ? [] : Array.isArray(data) ? data : [data as ResourceObject];
    for (const primary of primaries) seen.add(key(primary));
    const included: ResourceObject[] = [];
    for (const resource of options.included) {
      const k = key(resource);
      if (!seen.has(k)) {
        seen.add(k);
        included.push(resource);
      }
    }
    document.included = included;
  }
  if (options.links !== undefined) document.links = options.links;
  if (options.meta !== undefined) document.meta = options.meta;
  return document as DataDocument<D>;
}

/**
 * The resources reachable from `roots` through relationship linkage, each once, for `included`.
 * A visited set makes cyclic graphs (an author whose books name the author) terminate.
 *
 * @param resolve loads the resource an identifier names, or `undefined` to leave it out.
 * @param maxDepth how many relationship hops to follow (default 1: direct relations only).
 */
export function collectIncluded(
  roots: readonly ResourceObject[],
  resolve: (identifier: ResourceIdentifier) => ResourceObject | undefined,
  maxDepth = 1,
): ResourceObject[] {
  const seen = new Set(roots.map(key));
  const included: ResourceObject[] = [];
  let frontier: readonly ResourceObject[] = roots;
  for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
    const next: ResourceObject[] = [];
    for (const resource of frontier) {
      for (const identifier of linkedIdentifiers(resource)) {
        const k = key(identifier);
        if (seen.has(k)) continue;
        seen.add(k);
        const related = resolve(identifier);
        if (related !== undefined) {
          included.push(related);
          next.push(related);
        }
      }
    }
    frontier = next;
  }
  return included;
}

function linkedIdentifiers(resource: ResourceObject): ResourceIdentifier[] {
  const identifiers: ResourceIdentifier[] = [];
  for (const relationship of Object.values(resource.relationships ?? {})) {
    const { data } = relationship;
    if (data === undefined || data === null) continue;
    if (Array.isArray(data)) identifiers.push(...(data as readonly ResourceIdentifier[]));
    else identifiers.push(data as ResourceIdentifier);
  }
  return identifiers;
}

/**
 * The `self` link of the current request: the path as requested (trailing slash canonicalized to
 * the route's form) with its query string, so a collection's `links.self` reproduces the query.
 */
export function selfLink(ctx: LinkContext): string {
  const path = canonicalPath(ctx.request.path, ctx.routePattern);
  return ctx.request.search === '' ? path : `${path}?${ctx.request.search}`;
}

/** A resource object, leaving out empty members. */
export function resourceObject<A extends Attributes>(
  type: string,
  id: string,
  attributes: A,
  extra: { relationships?: Readonly<Record<string, Relationship>>; links?: Links; meta?: Meta } = {},
): ResourceObject<A> {
  return { type, id, attributes, ...extra };
}
