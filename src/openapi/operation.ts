import type { HeaderContract, OperationContract } from '../core/contract.js';
import type { RouteAuth, RouteDeprecation } from '../core/route.js';
import { deprecationNotice } from '../deprecation/notice.js';
import { JSON_API, JSON_MEDIA } from '../http/media-types.js';
import { versionInPath } from '../versioning/path-version.js';
import type { ComponentRegistry } from './component-registry.js';
import type { DescribedRoute } from './described-route.js';
import { tagOf, uniqueOperationId } from './naming.js';
import { parametersOf } from './parameters.js';
import { requestBodySchemas } from './resource-schemas.js';
import { type DeprecationHeaders, responsesOf } from './responses.js';
import type { OpenApiMediaType, OpenApiOperation } from './types.js';

export interface OperationInput {
  readonly route: DescribedRoute;
  /** The app's and the route's contracts. */
  readonly contracts: readonly OperationContract[];
  readonly scheme: string;
  readonly operationIds: Set<string>;
  readonly registry: ComponentRegistry;
}

/** One Operation Object (OpenAPI 3.1) from a declared route and its layers' contracts. */
export function operationOf(input: OperationInput): OpenApiOperation {
  const { route, scheme, registry } = input;
  const method = route.method.toUpperCase();
  const where = `route ${method} ${route.pattern}`;
  for (const member of ['summary', 'description'] as const) {
    const value = route[member];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
      throw new TypeError(`openApiDocument: ${where}: ${member} must be a non-empty string`);
  }
  const applying = input.contracts.filter(
    (c) =>
      (c.methods === undefined || c.methods.includes(method)) &&
      (c.exceptPaths === undefined || !c.exceptPaths.includes(route.pattern)),
  );
  const { parameters, ignoredHeaders } = parametersOf(route, applying, where);
  const auth = effectiveAuth(route.auth ?? 'none', applying);
  const announced = deprecationOf(route, applying);
  const responses = responsesOf({
    route,
    applying,
    auth,
    deprecation: deprecationHeaders(announced),
    registry,
    where,
  });
  const body = requestBodySchemas(route, registry, `${where}: body`);
  const summary = route.summary ?? successDescription(route) ?? `${method} ${route.pattern}`;
  const description = [route.description, ...ignoredHeaders].filter((d) => d !== undefined).join('\n\n');
  const security = auth === 'none' ? [] : [{ [scheme]: typeof auth === 'object' ? [...auth.scopes] : [] }];
  return {
    operationId: uniqueOperationId(method, route.pattern, input.operationIds),
    summary,
    ...(description !== '' ? { description } : {}),
    tags: [tagOf(route.pattern)],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: requestContent(route, body),
          },
        }),
    responses,
    security,
    ...(announced.here ? { deprecated: true } : {}),
    // JSON:API 1.1 "Profiles": what its JSON:API answers apply. OpenAPI has no field for it.
    ...(route.profiles === undefined ? {} : { 'x-jsonapi-profiles': [...route.profiles] }),
  };
}

/** Bare attributes as JSON, a resource document as JSON:API; the example in each shape. */
function requestContent(
  route: DescribedRoute,
  body: NonNullable<ReturnType<typeof requestBodySchemas>>,
): Record<string, OpenApiMediaType> {
  // A QUERY's content is the query as JSON, never a resource document (RFC 10008 section 2.1).
  if (route.method.toUpperCase() === 'QUERY')
    return {
      [JSON_MEDIA]: {
        schema: body.attributes,
        ...(body.example === undefined ? {} : { example: body.example.attributes }),
      },
    };
  if (body.example === undefined)
    return { [JSON_MEDIA]: { schema: body.attributes }, [JSON_API]: { schema: body.document } };
  return {
    [JSON_MEDIA]: { schema: body.attributes, example: body.example.attributes },
    [JSON_API]: { schema: body.document, example: body.example.document },
  };
}

/** The route's own 2xx description, the natural summary of what it does. */
function successDescription(route: DescribedRoute): string | undefined {
  const success = Object.entries(route.responses ?? {}).find(([status]) => status.startsWith('2'));
  return success?.[1].description;
}

/**
 * Whether the operation is deprecated, and how: by its `deprecated` field (always; a registered route
 * also lists the layer that field built among its contracts), or by a deprecation layer: always, or when
 * its path names the deprecated version (`/v1/...`). On an unversioned path the notice may still come,
 * when that version is negotiated.
 */
function deprecationOf(
  route: DescribedRoute,
  contracts: readonly OperationContract[],
): { readonly here: boolean; readonly notice: OperationContract['deprecation'] } {
  if (route.deprecated !== undefined) return { here: true, notice: noticeOf(route.deprecated) };
  const pathVersion = versionInPath(route.pattern);
  for (const contract of contracts) {
    if (contract.deprecated === true) return { here: true, notice: contract.deprecation };
    const notice = contract.deprecation;
    if (notice === undefined) continue;
    if (notice.version === undefined || pathVersion === notice.version) return { here: true, notice };
    if (pathVersion === undefined) return { here: false, notice };
  }
  return { here: false, notice: undefined };
}

/** A described route's `deprecated` field as the notice its `deprecation` layer declares. */
function noticeOf(deprecated: RouteDeprecation): OperationContract['deprecation'] {
  const { sunset } = deprecationNotice(deprecated);
  return {
    ...(sunset === undefined ? {} : { sunset }),
    ...(deprecated.successor === undefined ? {} : { successor: deprecated.successor }),
  };
}

/**
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and the successor `Link` of a deprecated operation
 * (always here, or when the deprecated version is negotiated). The layer decorates every response it
 * passes, errors included.
 */
function deprecationHeaders(announced: ReturnType<typeof deprecationOf>): DeprecationHeaders {
  const headers: Record<string, HeaderContract> = {};
  if (announced.notice === undefined) return headers;
  const required = announced.here ? { required: true } : {};
  const { sunset, successor } = announced.notice;
  headers.Deprecation = {
    ...required,
    description: 'When the operation (or version) was deprecated (RFC 9745).',
  };
  if (sunset !== undefined)
    headers.Sunset = { ...required, description: `When it stops being served (RFC 8594): ${sunset}.` };
  if (successor !== undefined)
    headers.Link = { ...required, description: `The successor (rel="successor-version"): ${successor}.` };
  return headers;
}

/** The route's declared auth, or what its layers require (`requireAuth`, `requireScopes`). */
function effectiveAuth(declared: RouteAuth, contracts: readonly OperationContract[]): RouteAuth {
  const required = contracts.flatMap((c) => (c.security === undefined ? [] : [c.security]));
  if (required.length === 0) return declared;
  const scopes = new Set([
    ...(typeof declared === 'object' ? declared.scopes : []),
    ...required.flatMap((r) => r.scopes),
  ]);
  return scopes.size === 0 ? 'principal' : { scopes: [...scopes] };
}
