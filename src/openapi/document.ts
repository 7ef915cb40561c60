import { ComponentRegistry } from './component-registry.js';
import type { DescribedRoute, OpenApiOptions } from './described-route.js';
import { documentedPath, tagOf } from './naming.js';
import { operationOf } from './operation.js';
import { placeQueryOperations } from './query-operation.js';
import { describeLinks } from './response-links.js';
import { DOCUMENT_SCHEMAS } from './schemas.js';
import { shareHeaders } from './shared-headers.js';
import type { OpenApiDocument, OpenApiOperation, OpenApiPathItem } from './types.js';

export type { DescribedRoute, DocumentedBody, OpenApiLicense, OpenApiOptions } from './described-route.js';

/**
 * Build an OpenAPI 3.1 document from declared routes (`app.routes()`): paths, parameters and request
 * bodies from their codecs (JSON Schema 2020-12), typed resources as named components, every response
 * per status with the error documents, the headers the route's layers read and write, security (bearer
 * JWT with scopes), tags and deprecation. The result is plain JSON, ready to serve.
 *
 * @example
 * const document = openApiDocument(app.routes(), { title: 'Books', version: '1.0.0', contracts: appContracts });
 * @see https://spec.openapis.org/oas/v3.1.0
 */
export function openApiDocument(routes: readonly DescribedRoute[], options: OpenApiOptions): OpenApiDocument {
  checkOptions(options);
  const scheme = options.securityScheme ?? 'bearer';
  const registry = new ComponentRegistry(DOCUMENT_SCHEMAS);
  const openapi = options.openapi ?? '3.1.0';
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  const spellings: Record<string, string> = {};
  const operationIds = new Set<string>();
  const tags: string[] = [];
  for (const route of routes) {
    const method = route.method.toLowerCase();
    if (method === 'head' || method === 'options') continue;
    const path = documentedPath(route.pattern);
    if (path !== route.pattern) spellings[path] = route.pattern;
    const item = paths[path] ?? {};
    paths[path] = item;
    item[method] = operationOf({
      route,
      contracts: [...(options.contracts ?? []), ...(route.contracts ?? [])],
      scheme,
      operationIds,
      registry,
    });
    const tag = tagOf(route.pattern);
    if (!tags.includes(tag)) tags.push(tag);
  }
  describeLinks(routes, paths);
  const placed = placeQueryOperations(
    paths,
    { headers: shareHeaders(paths), schemas: registry.used(paths) },
    openapi,
  );
  const items: Record<string, OpenApiPathItem> = {};
  for (const [path, operations] of Object.entries(placed.items)) {
    const registered = spellings[path];
    // A trailing slash is not a second resource: the router answers both spellings the same.
    items[path] =
      registered === undefined
        ? operations
        : {
            description: `Registered as \`${registered}\`; \`${path}\` and \`${registered}\` name the same resource and are answered the same.`,
            ...operations,
          };
  }
  const { license } = options;
  return {
    openapi,
    info: {
      title: options.title,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
      ...(license ? { license: { ...license } } : {}),
    },
    ...(options.servers ? { servers: options.servers.map((s) => ({ ...s })) } : {}),
    tags: tags.map((name) => ({ name, description: options.tags?.[name] ?? `Operations on ${name}.` })),
    paths: items,
    components: {
      schemas: placed.components.schemas,
      headers: placed.components.headers,
      securitySchemes: {
        [scheme]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A bearer JWT (RFC 6750), verified as RFC8725 (JSON Web Token Best Current Practices) asks: algorithms pinned, lifetime bounded; an operation lists the scopes it requires (`scope` claim).',
        },
      },
    },
  };
}

function checkOptions(options: OpenApiOptions): void {
  if (typeof options?.title !== 'string' || typeof options.version !== 'string') {
    throw new TypeError('openApiDocument: options.title and options.version must be strings');
  }
  const { license, tags } = options;
  if (options.openapi !== undefined && options.openapi !== '3.1.0' && options.openapi !== '3.2.0')
    throw new TypeError("openApiDocument: options.openapi must be '3.1.0' or '3.2.0'");
  if (license !== undefined) {
    if (typeof license?.name !== 'string' || license.name === '')
      throw new TypeError('openApiDocument: options.license.name must be a non-empty string');
    if (license.url !== undefined && license.identifier !== undefined)
      throw new TypeError('openApiDocument: options.license takes a url or an identifier, not both');
  }
  if (
    tags !== undefined &&
    (typeof tags !== 'object' || Object.values(tags).some((d) => typeof d !== 'string'))
  )
    throw new TypeError('openApiDocument: options.tags must map tag names to descriptions');
}
