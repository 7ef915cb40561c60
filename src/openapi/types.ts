/**
 * The parts of an OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0) that this library
 * writes and reads. Structural and partial: any valid 3.1 document is assignable, so the linter and
 * the test kit also take documents that other tools wrote.
 */

import type { JsonSchema } from '../validation/describe.js';

// A JSON Schema 2020-12 object (OpenAPI 3.1's Schema Object), or a `$ref`: the one type validation's
// `toJsonSchema` writes, so both subpaths name the same type.
export type { JsonSchema };

export interface OpenApiHeader {
  readonly description?: string;
  readonly required?: boolean;
  readonly schema?: JsonSchema;
  readonly $ref?: string;
}

export interface OpenApiMediaType {
  readonly schema?: JsonSchema;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, { readonly summary?: string; readonly value?: unknown }>>;
}

export interface OpenApiResponse {
  readonly description: string;
  readonly headers?: Readonly<Record<string, OpenApiHeader>>;
  readonly content?: Readonly<Record<string, OpenApiMediaType>>;
  readonly links?: Readonly<Record<string, OpenApiLink>>;
  readonly $ref?: string;
}

/**
 * A Link Object (OpenAPI 3.1 section 4.8.20): the operation a response leads to, and its parameters
 * as runtime expressions (`$response.body#/data/id`) or constants, named `path.id`, `query.discount`.
 */
export interface OpenApiLink {
  readonly operationId?: string;
  readonly operationRef?: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly description?: string;
}

export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly description?: string;
  readonly required?: boolean;
  readonly deprecated?: boolean;
  readonly schema?: JsonSchema;
  readonly style?: string;
  readonly explode?: boolean;
  readonly $ref?: string;
}

export interface OpenApiRequestBody {
  readonly description?: string;
  readonly required?: boolean;
  readonly content: Readonly<Record<string, OpenApiMediaType>>;
}

/** A Security Requirement Object: scheme name to the scopes it needs. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface OpenApiOperation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly parameters?: readonly OpenApiParameter[];
  readonly requestBody?: OpenApiRequestBody;
  readonly responses: Readonly<Record<string, OpenApiResponse>>;
  readonly security?: readonly SecurityRequirement[];
  readonly deprecated?: boolean;
  readonly [extension: `x-${string}`]: unknown;
}

/** Lower-case HTTP methods, as OpenAPI's Path Item Object names them. */
export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type OpenApiMethod = (typeof OPENAPI_METHODS)[number];

export type OpenApiPathItem = {
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: readonly OpenApiParameter[];
  /** OpenAPI 3.2: the QUERY operation (RFC 10008). */
  readonly query?: OpenApiOperation;
  /**
   * OpenAPI 3.1: operations of methods the Path Item has no field for, by method name, as the
   * OpenAPI Initiative's extension registry defines it (`QUERY` here).
   */
  readonly 'x-oai-additionalOperations'?: Readonly<Record<string, OpenApiOperation>>;
} & { readonly [M in OpenApiMethod]?: OpenApiOperation };

/** The extension a 3.1 document carries the QUERY operation in (OpenAPI extension registry). */
export const ADDITIONAL_OPERATIONS = 'x-oai-additionalOperations';

/**
 * Every operation of a Path Item with its method, lower case: the fixed fields, then QUERY from
 * either form (`query` in 3.2, `x-oai-additionalOperations.QUERY` in 3.1), so a linter or a test kit
 * reads both alike. Other additional operations are not listed.
 */
export function pathItemOperations(item: OpenApiPathItem): Array<[string, OpenApiOperation]> {
  const found: Array<[string, OpenApiOperation]> = [];
  for (const method of OPENAPI_METHODS) {
    const operation = item[method];
    if (operation !== undefined) found.push([method, operation]);
  }
  const query = item.query ?? item[ADDITIONAL_OPERATIONS]?.QUERY;
  if (query !== undefined) found.push(['query', query]);
  return found;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description?: string;
    readonly license?: { readonly name: string; readonly url?: string; readonly identifier?: string };
  };
  readonly servers?: readonly OpenApiServer[];
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
  readonly paths?: Readonly<Record<string, OpenApiPathItem>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, JsonSchema>>;
    readonly responses?: Readonly<Record<string, OpenApiResponse>>;
    readonly parameters?: Readonly<Record<string, OpenApiParameter>>;
    readonly headers?: Readonly<Record<string, OpenApiHeader>>;
    readonly securitySchemes?: Readonly<Record<string, unknown>>;
  };
  readonly security?: readonly SecurityRequirement[];
}

/**
 * A Server Object (OpenAPI 3.1 section 4.8.5), with specification extensions: `x-internal: false`
 * says the server is for the public, which OWASP's API9:2023 inventory rule asks every server to state.
 */
export interface OpenApiServer {
  readonly url: string;
  readonly description?: string;
  readonly [extension: `x-${string}`]: unknown;
}
