/**
 * A route's declared links as OpenAPI Link Objects (OpenAPI 3.1 section 4.8.20) on the responses
 * that carry them: the target operation by its `operationId`, each path parameter and query
 * parameter as a runtime expression into the response body (`$response.body#/data/id`, section
 * 4.8.20.4) or the constant the link sends. A target that is not among the described operations is a
 * `TypeError` naming both.
 */
import type { ResponseLink } from '../core/response-links.js';
import type { DescribedRoute } from './described-route.js';
import { documentedPath } from './naming.js';
import type { OpenApiLink, OpenApiOperation } from './types.js';

type Operations = Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;

/** Writes each declared link of `routes` into the responses of its operation in `paths`. */
export function describeLinks(routes: readonly DescribedRoute[], paths: Operations): void {
  const operation = (method: string, pattern: string) =>
    paths[documentedPath(pattern)]?.[method.toLowerCase()];
  for (const route of routes) {
    for (const [status, spec] of Object.entries(route.responses ?? {})) {
      if (spec.links === undefined) continue;
      const response = operation(route.method, route.pattern)?.responses[status];
      if (response === undefined) continue;
      const links: Record<string, OpenApiLink> = {};
      for (const [relation, link] of Object.entries(spec.links)) {
        const target = operation(link.target.method, link.target.path);
        if (target?.operationId === undefined)
          throw new TypeError(
            `openApiDocument: route ${route.method} ${route.pattern}: responses[${status}].links.${relation} leads to ${link.target.method} ${link.target.path}, which is not among the routes`,
          );
        links[relation] = linkObject(link, target.operationId);
      }
      (response as { links?: Readonly<Record<string, OpenApiLink>> }).links = links;
    }
  }
}

function linkObject(link: ResponseLink, operationId: string): OpenApiLink {
  const parameters: Record<string, unknown> = {};
  for (const [name, from] of Object.entries(link.params)) parameters[`path.${name}`] = expression(from);
  for (const [name, from] of Object.entries(link.query))
    parameters[`query.${name}`] = typeof from === 'object' ? from.value : expression(from);
  return {
    operationId,
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
    ...(link.description === undefined ? {} : { description: link.description }),
  };
}

/** `data.attributes.bookId` → `$response.body#/data/attributes/bookId` (a JSON Pointer, RFC 6901). */
function expression(from: string): string {
  const pointer = from.split('.').map((token) => token.replaceAll('~', '~0').replaceAll('/', '~1'));
  return `$response.body#/${pointer.join('/')}`;
}
