/**
 * A route's declared links (`responses[status].links`, made by `linkTo`) as the app runs them: each
 * checked where its route is declared and, once every route is, against its target (a `TypeError`
 * naming both routes), then written into each response of its status. Only the links' own methods
 * are called here, so an app that declares none never loads the link builder (docs/core.md,
 * "Declared links").
 */

import { answersCollection } from '../core/resource-bodies.js';
import type { LinkedRoute, ResponseLink } from '../core/response-links.js';
import type { ApiResponse } from '../http/types.js';

type LinksByStatus = Readonly<Record<number, { readonly links?: Readonly<Record<string, ResponseLink>> }>>;

const RELATION = /^[A-Za-z][A-Za-z0-9._-]*$/;

/** Checks one response's declared links where its route is declared (`fail` names the route). */
export function checkDeclaredLinks(
  links: unknown,
  where: string,
  body: unknown,
  fail: (what: string) => never,
): void {
  if (typeof links !== 'object' || links === null || Array.isArray(links))
    fail(`${where} must map relation names to links (linkTo)`);
  const collection = answersCollection(body);
  for (const [relation, link] of Object.entries(links as object)) {
    const at = `${where}.${relation}`;
    if (!RELATION.test(relation))
      fail(`${at}: a relation name is a letter, then letters, digits, ".", "_", "-"`);
    if (typeof (link as ResponseLink)?.problemOn !== 'function') fail(`${at} must be made by linkTo`);
    const problem = (link as ResponseLink).problemOn(collection);
    if (problem !== undefined) fail(`${at}: ${problem}`);
  }
}

/**
 * Checks every declared link against the declared routes: its target is one of them, and each query
 * parameter it sets is one the target declares (a constant value one its codec accepts).
 */
export function checkLinkTargets(
  routes: readonly (LinkedRoute & { readonly responses: LinksByStatus })[],
): void {
  const byName = new Map(routes.map((route) => [`${route.method} ${route.pattern}`, route]));
  for (const route of routes) {
    for (const [status, spec] of Object.entries(route.responses)) {
      for (const [relation, link] of Object.entries(spec.links ?? {})) {
        const name = `${link.target.method} ${link.target.path}`;
        const at = `Route ${route.method} ${route.pattern}: responses[${status}].links.${relation}`;
        const target = byName.get(name);
        if (target === undefined) throw new TypeError(`${at} leads to ${name}, which is not declared`);
        const problem = link.problemWith(target);
        if (problem !== undefined) throw new TypeError(`${at}: ${problem}`);
      }
    }
  }
}

/**
 * What writes a route's declared links into its responses, by status; `undefined` when it declares
 * none. Each link is added to the document's top-level `links`, beside the handler's own (`self`),
 * as the conventions' link-carrying form names them; JSON:API 1.1 lists `self`, `related`,
 * `describedby` and pagination there, and its clients ignore members they do not recognize ("Top
 * Level", "Document Structure").
 */
export function responseLinker(responses: LinksByStatus): ((response: ApiResponse) => void) | undefined {
  const byStatus = new Map<number, [string, ResponseLink][]>();
  for (const [status, spec] of Object.entries(responses))
    if (spec.links !== undefined) byStatus.set(Number(status), Object.entries(spec.links));
  if (byStatus.size === 0) return undefined;
  return (response) => {
    const links = byStatus.get(response.status);
    const document = response.json as { data?: unknown; links?: Record<string, unknown> } | undefined;
    if (links === undefined || typeof document !== 'object' || document === null) return;
    const { data } = document;
    const resource = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {};
    const built: Record<string, string> = {};
    for (const [relation, link] of links) built[relation] = link.href(resource);
    document.links = { ...document.links, ...built };
  };
}
