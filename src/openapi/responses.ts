import type { HeaderContract, OperationContract, StatusContract } from '../core/contract.js';
import { isResourceBody } from '../core/resource-bodies.js';
import type { RouteAuth } from '../core/route.js';
import { JSON_API, JSON_MEDIA, PROBLEM_JSON, RESPONSE_MEDIA_TYPES } from '../http/media-types.js';
import { takesContent } from '../http/methods.js';
import { ComponentRegistry } from './component-registry.js';
import type { DescribedRoute, DocumentedBody } from './described-route.js';
import { embedded, resourceDocumentRef } from './resource-schemas.js';
import { KIND_SCHEMAS } from './schemas.js';
import type { JsonSchema, OpenApiHeader, OpenApiResponse } from './types.js';

/** Error documents are sent as JSON:API, plain JSON or RFC 9457 problem details, as `Accept` asks. */
const ERROR_CONTENT = {
  [JSON_API]: { schema: ComponentRegistry.ref('ErrorDocument') },
  [JSON_MEDIA]: { schema: ComponentRegistry.ref('ErrorDocument') },
  [PROBLEM_JSON]: { schema: ComponentRegistry.ref('Problem') },
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

/** A refused body names the media types a body may be sent as (`decodeJsonBody`). */
const UNSUPPORTED_MEDIA_TYPE: StatusContract = {
  description: STANDARD_STATUSES[415]!,
  headers: {
    'Accept-Post': {
      description: 'The media types a POST body may be sent as (W3C LDP 1.0 section 7.1).',
    },
    'Accept-Patch': {
      description: 'The media types a PATCH body may be sent as (RFC 5789 section 3.1).',
    },
    'Accept-Encoding': {
      description:
        'The content codings a body may be sent with, for a refused one (RFC 9110 section 12.5.3).',
    },
  },
};

export interface ResponsesInput {
  readonly route: DescribedRoute;
  readonly applying: readonly OperationContract[];
  readonly auth: RouteAuth;
  /** Whether the route (or a layer) announces it deprecated, and how. */
  readonly deprecation: DeprecationHeaders;
  readonly registry: ComponentRegistry;
  readonly where: string;
}

/** The deprecation headers an operation sends: on every response its layer answers, required on 2xx. */
export type DeprecationHeaders = Readonly<Record<string, HeaderContract>>;

/**
 * Every response of an operation, by status: the route's own, the statuses the pipeline and its
 * layers answer with (RFC 9110 section 15), and on each the headers sent with it.
 */
export function responsesOf(input: ResponsesInput): Record<string, OpenApiResponse> {
  const { route, applying, auth, registry, where } = input;
  const method = route.method.toUpperCase();
  const statuses = new Map<number, OpenApiResponse>();
  const produces = route.produces ?? RESPONSE_MEDIA_TYPES;
  for (const [code, spec] of Object.entries(route.responses ?? {})) {
    const status = Number(code);
    const content = contentOf(status, spec.body, produces, registry, `${where}: response ${status}`);
    statuses.set(status, {
      description: spec.description,
      ...(spec.headers ? { headers: headersOf(spec.headers) } : {}),
      ...(content === undefined ? {} : { content: withExample(content, spec.example) }),
    });
  }
  const addStatus = (status: number, contract?: StatusContract) => {
    const existing = statuses.get(status);
    const headers = mergeHeaders(existing?.headers ?? {}, headersOf(contract?.headers ?? {}));
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
  if (/\{[^}]+\}/.test(route.pattern)) addStatus(404);
  // A write reads a body (declared, or decoded by the handler): 400, 413 and 415 are its answers.
  const writes = takesContent(method);
  if (route.query !== undefined || route.body !== undefined || writes) addStatus(400);
  if (route.body !== undefined || writes) {
    addStatus(413);
    addStatus(415, method === 'QUERY' ? { description: STANDARD_STATUSES[415]! } : UNSUPPORTED_MEDIA_TYPE);
  }
  addStatus(406);
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
  if (![...statuses.keys()].some((s) => s >= 200 && s < 300)) undocumentedSuccess(method, produces, statuses);

  const success: Record<string, HeaderContract> = {};
  const everywhere: Record<string, HeaderContract> = {};
  for (const contract of applying) {
    Object.assign(success, contract.successHeaders);
    Object.assign(everywhere, contract.allHeaders);
  }
  // Errors are rendered `Cache-Control: no-store` (docs/errors.md): never stored by a cache.
  const errorHeaders = headersOf({
    'Cache-Control': { description: '`no-store` on an error (RFC 9111 section 5.2.2.5).', required: true },
  });
  const responses: Record<string, OpenApiResponse> = {};
  for (const status of [...statuses.keys()].sort((a, b) => a - b)) {
    const response = statuses.get(status)!;
    const ok = status >= 200 && status < 300;
    const deprecation = Object.fromEntries(
      Object.entries(input.deprecation).map(([name, h]) => [name, ok ? h : { ...h, required: false }]),
    );
    const extra = {
      ...headersOf(everywhere),
      ...headersOf(deprecation),
      ...(ok ? headersOf(success) : {}),
      ...(status >= 400 ? errorHeaders : {}),
    };
    responses[String(status)] =
      Object.keys(extra).length === 0
        ? response
        : { ...response, headers: mergeHeaders(extra, response.headers ?? {}) };
  }
  return responses;
}

/** Undocumented success: a JSON:API document of some kind (or nothing, for a DELETE). */
function undocumentedSuccess(
  method: string,
  produces: readonly string[],
  statuses: Map<number, OpenApiResponse>,
) {
  if (method === 'DELETE') {
    statuses.set(204, { description: 'Success: nothing to return.' });
    return;
  }
  const schema = {
    anyOf: [
      ComponentRegistry.ref('ResourceDocument'),
      ComponentRegistry.ref('CollectionDocument'),
      ComponentRegistry.ref('MetaDocument'),
    ],
  };
  statuses.set(method === 'POST' ? 201 : 200, {
    description: 'Success.',
    content: Object.fromEntries(produces.map((type) => [type, { schema }])),
  });
}

function contentOf(
  status: number,
  body: DocumentedBody | undefined,
  produces: readonly string[],
  registry: ComponentRegistry,
  where: string,
): OpenApiResponse['content'] {
  if (body === 'empty' || status === 204 || status === 304) return undefined;
  if (body === undefined) {
    // A route producing other media types (HTML, CSS, CSV) answers bytes of those types.
    const other = produces.filter((type) => !/[/+]json$/.test(type));
    if (other.length === 0 || status >= 300) return undefined;
    return Object.fromEntries(other.map((type) => [type, { schema: { type: 'string' } }]));
  }
  if (body === 'errors') return ERROR_CONTENT;
  let schema: JsonSchema;
  if (typeof body === 'string') schema = { $ref: KIND_SCHEMAS[body] };
  else if (isResourceBody(body)) schema = resourceDocumentRef(body, registry, where);
  else schema = embedded(body, where);
  return Object.fromEntries(produces.map((type) => [type, { schema }]));
}

/** The declared example on every JSON media type of a response. */
function withExample(content: NonNullable<OpenApiResponse['content']>, example: unknown) {
  if (example === undefined) return content;
  return Object.fromEntries(
    Object.entries(content).map(([type, media]) => [
      type,
      /json$/.test(type) ? { ...media, example } : media,
    ]),
  );
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

/** Header maps merged as HTTP compares field names (RFC 9110 section 5.1): case-insensitively, later wins. */
function mergeHeaders(
  ...maps: readonly Readonly<Record<string, OpenApiHeader>>[]
): Record<string, OpenApiHeader> {
  const out: Record<string, OpenApiHeader> = {};
  const spelling = new Map<string, string>();
  for (const map of maps) {
    for (const [name, header] of Object.entries(map)) {
      const key = name.toLowerCase();
      const first = spelling.get(key) ?? name;
      spelling.set(key, first);
      out[first] = header;
    }
  }
  return out;
}
