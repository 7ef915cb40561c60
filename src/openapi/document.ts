import type * as t from 'io-ts';
import { VERSION_SEGMENT } from '../core/route-pattern.js';
import { JSON_API, JSON_MEDIA, PROBLEM_JSON, RESPONSE_MEDIA_TYPES } from '../http/media-types.js';
import { toJsonSchema } from '../validation/json-schema.js';
import type { HeaderContract, OperationContract, StatusContract } from './contribution.js';
import { DOCUMENT_SCHEMAS, KIND_SCHEMAS } from './schemas.js';
import type {
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiPathItem,
  OpenApiRequestBody,
  OpenApiResponse,
} from './types.js';

/** The body kinds a route may document instead of a codec. */
export type DocumentedBody = t.Mixed | 'resource' | 'collection' | 'errors' | 'meta' | 'empty';

/**
 * What the generator reads from a route. `app.routes()` entries have this shape; so can routes a
 * team describes by hand.
 */
export interface DescribedRoute {
  readonly method: string;
  readonly pattern: string;
  readonly params?: Readonly<Record<string, t.Mixed>>;
  readonly query?: Readonly<Record<string, t.Mixed>> | undefined;
  readonly body?: { readonly codec: t.Mixed; readonly type: string; readonly id?: string } | undefined;
  readonly responses?: Readonly<
    Record<
      number,
      {
        readonly description: string;
        readonly body?: DocumentedBody;
        readonly headers?: Readonly<Record<string, { readonly description: string }>>;
      }
    >
  >;
  readonly auth?: 'none' | 'principal' | { readonly scopes: readonly string[] };
  readonly bodyLimit?: number;
  readonly produces?: readonly string[] | undefined;
  readonly deprecated?: { readonly sunset?: Date; readonly successor?: string } | undefined;
  /** What the route's layers (and the app's) add to its contract. */
  readonly contracts?: readonly OperationContract[];
  readonly summary?: string;
  readonly description?: string;
}

export interface OpenApiOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  /** Server URLs (`[{ url: '/api' }]` when the app is mounted under a prefix). */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  /** Contracts of application-wide middleware, merged into every operation. */
  readonly contracts?: readonly OperationContract[];
  /** The name of the bearer security scheme (default `bearer`). */
  readonly securityScheme?: string;
}

/** Error documents are sent as JSON:API, plain JSON or RFC 9457 problem details, as `Accept` asks. */
const ERROR_CONTENT = {
  [JSON_API]: { schema: { $ref: KIND_SCHEMAS.errors } },
  [JSON_MEDIA]: { schema: { $ref: KIND_SCHEMAS.errors } },
  [PROBLEM_JSON]: { schema: { $ref: '#/components/schemas/Problem' } },
} as const;

const STANDARD_STATUSES: Readonly<Record<number, string>> = {
  304: 'Not Modified: the representation the client holds is current.',
  400: 'Bad Request: a parameter, the query or the body is invalid; `errors` point at each.',
  401: 'Unauthorized: no valid credentials.',
  403: 'Forbidden: the credentials lack a required scope.',
  404: 'Not Found: no such resource, or not one the caller may see.',
  406: 'Not Acceptable: none of the media types in `Accept` (or the version asked for) is served.',
  413: 'Content Too Large: the body is larger than the route accepts.',
  415: 'Unsupported Media Type: the body is not JSON or JSON:API, or not UTF-8, or has a content coding.',
  500: 'Internal Server Error: an unexpected failure; the body says nothing more.',
};

const WWW_AUTHENTICATE: HeaderContract = {
  required: true,
  description: 'The challenge (RFC 9110 section 11.6.1): `Bearer`, with `error` when a token was refused.',
  schema: { type: 'string' },
};

/**
 * Build an OpenAPI 3.1 document from declared routes (`app.routes()`): paths, parameters and request
 * bodies from their codecs (JSON Schema 2020-12), every response per status with the error
 * documents, the headers the route's layers read and write, security (bearer JWT with scopes) and
 * deprecation. The result is plain JSON, ready to serve.
 *
 * @example
 * const document = openApiDocument(app.routes(), { title: 'Books', version: '1.0.0', contracts: appContracts });
 * @see https://spec.openapis.org/oas/v3.1.0
 */
export function openApiDocument(routes: readonly DescribedRoute[], options: OpenApiOptions): OpenApiDocument {
  if (typeof options?.title !== 'string' || typeof options.version !== 'string') {
    throw new TypeError('openApiDocument: options.title and options.version must be strings');
  }
  const scheme = options.securityScheme ?? 'bearer';
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const path = route.pattern.length > 1 ? route.pattern.replace(/\/$/, '') : route.pattern;
    const method = route.method.toLowerCase();
    if (method === 'head' || method === 'options') continue;
    const item = paths[path] ?? {};
    paths[path] = item;
    item[method] = operationOf(
      route,
      [...(options.contracts ?? []), ...(route.contracts ?? [])],
      scheme,
      operationIds,
    );
  }
  const headers = shareHeaders(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
    },
    ...(options.servers ? { servers: options.servers.map((s) => ({ ...s })) } : {}),
    paths: paths as Record<string, OpenApiPathItem>,
    components: {
      schemas: DOCUMENT_SCHEMAS,
      headers,
      securitySchemes: { [scheme]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

function operationOf(
  route: DescribedRoute,
  contracts: readonly OperationContract[],
  scheme: string,
  operationIds: Set<string>,
): OpenApiOperation {
  const method = route.method.toUpperCase();
  const where = `route ${method} ${route.pattern}`;
  const applying = contracts.filter((c) => c.methods === undefined || c.methods.includes(method));
  const parameters: OpenApiParameter[] = [];
  const paramNames = [...route.pattern.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const name of paramNames) {
    const codec = route.params?.[name];
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: codec === undefined ? { type: 'string' } : embedded(codec, `${where}: path parameter ${name}`),
    });
  }
  for (const [name, codec] of Object.entries(route.query ?? {})) {
    parameters.push({
      name,
      in: 'query',
      required: false,
      schema: embedded(codec, `${where}: query parameter ${name}`),
    });
  }
  for (const contract of applying) {
    for (const [name, header] of Object.entries(contract.requestHeaders ?? {})) {
      if (parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase())) continue;
      parameters.push({
        name,
        in: 'header',
        required: header.required ?? false,
        description: header.description,
        schema: header.schema ?? { type: 'string' },
      });
    }
  }

  const statuses = new Map<number, OpenApiResponse>();
  const produces = route.produces ?? RESPONSE_MEDIA_TYPES;
  for (const [code, spec] of Object.entries(route.responses ?? {})) {
    const status = Number(code);
    statuses.set(status, {
      description: spec.description,
      ...(spec.headers ? { headers: headersOf(spec.headers) } : {}),
      ...contentOf(status, spec.body, produces, `${where}: response ${status}`),
    });
  }
  const addStatus = (status: number, contract?: StatusContract) => {
    const existing = statuses.get(status);
    const headers = { ...(existing?.headers ?? {}), ...headersOf(contract?.headers ?? {}) };
    statuses.set(status, {
      description:
        existing?.description ?? contract?.description ?? STANDARD_STATUSES[status] ?? `Status ${status}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(existing?.content
        ? { content: existing.content }
        : contract?.body === false || status === 304
          ? {}
          : { content: ERROR_CONTENT }),
    });
  };
  if (paramNames.length > 0) addStatus(404);
  // A write reads a body (declared, or decoded by the handler): 400, 413 and 415 are its answers.
  const writes = method === 'POST' || method === 'PUT' || method === 'PATCH';
  if (route.query !== undefined || route.body !== undefined || writes) addStatus(400);
  if (route.body !== undefined || writes) {
    addStatus(413);
    addStatus(415);
  }
  addStatus(406);
  const auth = effectiveAuth(route.auth ?? 'none', applying);
  if (auth !== 'none')
    addStatus(401, {
      description: STANDARD_STATUSES[401]!,
      headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
    });
  if (typeof auth === 'object' && auth.scopes.length > 0) addStatus(403);
  for (const contract of applying) {
    for (const [code, status] of Object.entries(contract.responses ?? {})) addStatus(Number(code), status);
  }
  addStatus(500);
  if (![...statuses.keys()].some((s) => s >= 200 && s < 300)) {
    // Undocumented success: a JSON:API document of some kind (or nothing, for a DELETE).
    if (method === 'DELETE') statuses.set(204, { description: 'Success: nothing to return.' });
    else {
      const schema = {
        anyOf: [
          { $ref: KIND_SCHEMAS.resource },
          { $ref: KIND_SCHEMAS.collection },
          { $ref: KIND_SCHEMAS.meta },
        ],
      };
      statuses.set(method === 'POST' ? 201 : 200, {
        description: 'Success.',
        content: Object.fromEntries(produces.map((type) => [type, { schema }])),
      });
    }
  }
  const announced = deprecationOf(route, applying);
  const deprecation = route.deprecated ?? (announced.here ? {} : undefined);
  const success: Record<string, HeaderContract> = {};
  const everywhere: Record<string, HeaderContract> = {};
  for (const contract of applying) {
    Object.assign(success, contract.successHeaders);
    Object.assign(everywhere, contract.allHeaders);
  }
  const declaredDeprecation = route.deprecated;
  if (declaredDeprecation !== undefined) {
    success.Deprecation = {
      required: true,
      description: 'When the operation was deprecated (RFC 9745).',
      schema: { type: 'string' },
    };
    if (declaredDeprecation.sunset !== undefined) {
      success.Sunset = {
        description: `When the operation stops being served (RFC 8594): ${declaredDeprecation.sunset.toUTCString()}.`,
        schema: { type: 'string' },
      };
    }
    if (declaredDeprecation.successor !== undefined) {
      success.Link = {
        description: `The successor (rel="successor-version"): ${declaredDeprecation.successor}.`,
        schema: { type: 'string' },
      };
    }
  }
  if (route.deprecated === undefined && announced.notice !== undefined) {
    // Announced by a deprecation layer: always here, or when the deprecated version is negotiated.
    const required = announced.here ? { required: true } : {};
    const { sunset, successor } = announced.notice;
    success.Deprecation = {
      ...required,
      description: 'When the operation (or version) was deprecated (RFC 9745).',
    };
    if (sunset !== undefined)
      success.Sunset = { ...required, description: `When it stops being served (RFC 8594): ${sunset}.` };
    if (successor !== undefined)
      success.Link = { ...required, description: `The successor (rel="successor-version"): ${successor}.` };
  }
  const responses: Record<string, OpenApiResponse> = {};
  for (const status of [...statuses.keys()].sort((a, b) => a - b)) {
    const response = statuses.get(status)!;
    const extra = { ...headersOf(everywhere), ...(status >= 200 && status < 300 ? headersOf(success) : {}) };
    responses[String(status)] =
      Object.keys(extra).length === 0
        ? response
        : { ...response, headers: { ...extra, ...(response.headers ?? {}) } };
  }

  const security = auth === 'none' ? [] : [{ [scheme]: typeof auth === 'object' ? [...auth.scopes] : [] }];
  return {
    operationId: uniqueId(method, route.pattern, operationIds),
    tags: [tagOf(route.pattern)],
    ...(route.summary ? { summary: route.summary } : {}),
    ...(route.description ? { description: route.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body !== undefined ? { requestBody: requestBodyOf(route.body, `${where}: body`) } : {}),
    responses,
    security,
    ...(deprecation !== undefined ? { deprecated: true } : {}),
  };
}

/**
 * Whether a deprecation layer deprecates this operation: always, or when its path names the deprecated
 * version (`/v1/...`). On an unversioned path the notice may still come, when that version is negotiated.
 */
function deprecationOf(
  route: DescribedRoute,
  contracts: readonly OperationContract[],
): { readonly here: boolean; readonly notice: OperationContract['deprecation'] } {
  const pathVersion = /(?:^|\/)v(\d+)(?:\/|$)/.exec(route.pattern)?.[1];
  for (const contract of contracts) {
    if (contract.deprecated === true) return { here: true, notice: contract.deprecation };
    const notice = contract.deprecation;
    if (notice === undefined) continue;
    if (notice.version === undefined || Number(pathVersion) === notice.version) return { here: true, notice };
    if (pathVersion === undefined) return { here: false, notice };
  }
  return { here: false, notice: undefined };
}

/** The route's declared auth, or what its layers require (`requireAuth`, `requireScopes`). */
function effectiveAuth(
  declared: NonNullable<DescribedRoute['auth']>,
  contracts: readonly OperationContract[],
): NonNullable<DescribedRoute['auth']> {
  const required = contracts.flatMap((c) => (c.security === undefined ? [] : [c.security]));
  if (required.length === 0) return declared;
  const scopes = new Set([
    ...(typeof declared === 'object' ? declared.scopes : []),
    ...required.flatMap((r) => r.scopes),
  ]);
  return scopes.size === 0 ? 'principal' : { scopes: [...scopes] };
}

function requestBodyOf(body: NonNullable<DescribedRoute['body']>, where: string): OpenApiRequestBody {
  const attributes = embedded(body.codec, where);
  const resource: JsonSchema = {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: body.id === undefined ? ['type', 'attributes'] : ['type', 'id', 'attributes'],
        properties: { type: { const: body.type }, id: { type: 'string' }, attributes },
      },
    },
  };
  return {
    required: true,
    content: {
      [JSON_MEDIA]: { schema: attributes },
      [JSON_API]: { schema: resource },
    },
  };
}

function contentOf(
  status: number,
  body: DocumentedBody | undefined,
  produces: readonly string[],
  where: string,
): { content?: OpenApiResponse['content'] } {
  if (body === 'empty' || status === 204 || status === 304) return {};
  if (body === undefined) {
    // A route producing other media types (HTML, CSS, CSV) answers bytes of those types.
    const other = produces.filter((type) => !/[/+]json$/.test(type));
    if (other.length === 0 || status >= 300) return {};
    return { content: Object.fromEntries(other.map((type) => [type, { schema: { type: 'string' } }])) };
  }
  if (body === 'errors') return { content: ERROR_CONTENT };
  const schema: JsonSchema = typeof body === 'string' ? { $ref: KIND_SCHEMAS[body] } : embedded(body, where);
  return { content: Object.fromEntries(produces.map((type) => [type, { schema }])) };
}

function headersOf(
  headers: Readonly<
    Record<
      string,
      { readonly description: string; readonly schema?: JsonSchema; readonly required?: boolean }
    >
  >,
): Record<string, OpenApiHeader> {
  const out: Record<string, OpenApiHeader> = {};
  for (const [name, header] of Object.entries(headers)) {
    out[name] = {
      description: header.description,
      ...(header.required === true ? { required: true } : {}),
      schema: header.schema ?? { type: 'string' },
    };
  }
  return out;
}

/** A codec's schema for use inside the document (OpenAPI 3.1 sets the dialect once, not per schema). */
function embedded(codec: t.Mixed, where: string): JsonSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(codec, { where });
  return schema;
}

function tagOf(pattern: string): string {
  const segments = pattern
    .split('/')
    .filter((s) => s !== '' && !s.startsWith('{') && !VERSION_SEGMENT.test(s) && s !== 'api');
  return segments[0] ?? 'root';
}

function uniqueId(method: string, pattern: string, taken: Set<string>): string {
  const words = pattern
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('{') ? `by-${s.slice(1, -1)}` : s))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  const base = [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

/**
 * Every response header object, written once in `components.headers` and referenced where it is used:
 * the same `RateLimit` or `Cache-Control` would otherwise repeat on every response of every operation.
 */
function shareHeaders(
  paths: Record<string, Record<string, OpenApiOperation>>,
): Record<string, OpenApiHeader> {
  const shared: Record<string, OpenApiHeader> = {};
  const names = new Map<string, string>();
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses) as OpenApiResponse[]) {
        if (response.headers === undefined) continue;
        const refs: Record<string, OpenApiHeader> = {};
        for (const [name, header] of Object.entries(response.headers)) {
          const key = `${name}\u0000${JSON.stringify(header)}`;
          let component = names.get(key);
          if (component === undefined) {
            component = name;
            for (let n = 2; shared[component] !== undefined; n++) component = `${name}-${n}`;
            shared[component] = header;
            names.set(key, component);
          }
          refs[name] = { $ref: `#/components/headers/${component}` };
        }
        (response as { headers?: Record<string, OpenApiHeader> }).headers = refs;
      }
    }
  }
  return shared;
}
