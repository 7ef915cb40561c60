import fc from 'fast-check';
import { resolveRef } from '../openapi/refs.js';
import {
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiParameter,
  pathItemOperations,
} from '../openapi/types.js';
import { invalidValue, validValue } from './schema-arbitrary.js';

/** A request drawn from an operation of an OpenAPI document. */
export interface GeneratedRequest {
  /** `GET /books/{id}`: the operation it was drawn from. */
  readonly operation: string;
  readonly method: string;
  /** The path with its parameters filled in and percent-encoded. */
  readonly path: string;
  /** The query string without `?` (`''` when none). */
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Whether every part follows the document; when not, `why` says what was broken. */
  readonly valid: boolean;
  readonly why?: string;
}

export interface RequestArbitraryOptions {
  /** `true`: only valid requests; `false`: only requests with one part broken; default both. */
  readonly valid?: boolean;
  /** Which operations to draw from (`'GET /books/{id}'`); default all. */
  readonly operations?: (operation: string) => boolean;
  /** Headers every request carries (credentials, `Accept`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Values known to name something (the caller's own user id): path parameters take one of them
   * about half the time, so that requests reach existing resources and not only 404s.
   */
  readonly pathValues?: readonly string[];
}

interface Part {
  readonly params: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly query: [string, string][];
  readonly body?: string;
  readonly valid: boolean;
  readonly why?: string;
}

/**
 * Requests drawn from an OpenAPI document: for each operation, path and query parameters and a JSON
 * body from their schemas (valid), or the same with exactly one part broken (a parameter or a body
 * member of the wrong type or out of bounds, an unknown or missing member, malformed JSON).
 */
export function requestArbitrary(
  document: OpenApiDocument,
  options: RequestArbitraryOptions = {},
): fc.Arbitrary<GeneratedRequest> {
  const arbitraries: fc.Arbitrary<GeneratedRequest>[] = [];
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = resolveRef(document, rawItem);
    for (const [method, operation] of pathItemOperations(item)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (options.operations && !options.operations(name)) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
        resolveRef(document, p),
      );
      arbitraries.push(
        operationRequests(document, name, method.toUpperCase(), path, operation, parameters, options),
      );
    }
  }
  if (arbitraries.length === 0)
    throw new TypeError('requestArbitrary: the document has no operation to draw from');
  // Every operation equally often (`fc.oneof` favours the first ones at small sizes); a failure
  // shrinks towards the document's first operation.
  return fc.nat({ max: arbitraries.length - 1 }).chain((i) => arbitraries[i]!);
}

/**
 * A query parameter's value as its `style` and `explode` say (OpenAPI 3.1, Parameter Object, Style
 * Values): a list in the default `form` style, exploded, is the name repeated once per member;
 * with `explode: false`, one value of the members joined by commas.
 */
function queryPairs(p: OpenApiParameter, value: unknown, asText: (v: unknown) => string): [string, string][] {
  if (!Array.isArray(value)) return [[p.name, asText(value)]];
  if (p.explode === false) return [[p.name, value.map(asText).join(',')]];
  return value.map((member): [string, string] => [p.name, asText(member)]);
}

function operationRequests(
  document: OpenApiDocument,
  name: string,
  method: string,
  template: string,
  operation: OpenApiOperation,
  parameters: readonly OpenApiParameter[],
  options: RequestArbitraryOptions,
): fc.Arbitrary<GeneratedRequest> {
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  // Required request headers get a fresh value each time (a new Idempotency-Key per request).
  const requiredHeaders = parameters.filter((p) => p.in === 'header' && p.required === true);
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const schemaOf = (p: OpenApiParameter): JsonSchema => p.schema ?? { type: 'string' };
  const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

  const known = options.pathValues ?? [];
  const paramValue = (p: OpenApiParameter) => {
    // A path segment is never empty or a dot segment: `/books/`, `/books/.` and `/books/..` name
    // other resources (RFC 3986 section 5.2.4).
    const drawn = validValue(schemaOf(p), document)
      .map(asText)
      .filter((v) => v !== '' && v !== '.' && v !== '..');
    return known.length === 0 ? drawn : fc.oneof(drawn, fc.constantFrom(...known));
  };
  const validParams = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, paramValue(p)])));
  const validQuery = fc
    .subarray(queryParams)
    .chain((chosen) =>
      fc.tuple(...chosen.map((p) => validValue(schemaOf(p), document).map((v) => queryPairs(p, v, asText)))),
    )
    .map((pairs) => pairs.flat());
  const validBody =
    bodySchema === undefined
      ? fc.constant(undefined)
      : validValue(bodySchema, document).map((v) => JSON.stringify(v));
  const validHeaders = fc.record(
    Object.fromEntries(
      requiredHeaders.map((p) => [
        p.name.toLowerCase(),
        p.name.toLowerCase() === 'idempotency-key'
          ? fc.uuid()
          : validValue(schemaOf(p), document).map(asText),
      ]),
    ),
  );
  const valid: fc.Arbitrary<Part> = fc
    .tuple(validParams, validQuery, validBody, validHeaders)
    .map(([params, query, body, headers]) => ({
      params,
      query,
      headers,
      ...(body === undefined ? {} : { body }),
      valid: true,
    }));

  const breakers: fc.Arbitrary<Part>[] = [];
  for (const p of queryParams) {
    breakers.push(
      fc.tuple(valid, invalidValue(schemaOf(p), document, { asText: true })).map(([part, bad]) => ({
        ...part,
        query: [...part.query.filter(([k]) => k !== p.name), [p.name, asText(bad.value)] as [string, string]],
        valid: false,
        why: `query parameter ${p.name}: ${bad.why}`,
      })),
    );
  }
  if (bodySchema !== undefined) {
    breakers.push(
      fc.tuple(valid, invalidValue(bodySchema, document)).map(([part, bad]) => ({
        ...part,
        body: JSON.stringify(bad.value),
        valid: false,
        why: `body: ${bad.why}`,
      })),
      fc.tuple(valid, fc.constantFrom('{', '{"a":', '[1,', 'nul')).map(([part, text]) => ({
        ...part,
        body: text,
        valid: false,
        why: 'body: malformed JSON',
      })),
    );
  }
  const parts =
    options.valid === true || breakers.length === 0
      ? valid
      : options.valid === false
        ? fc.oneof(...breakers)
        : fc.oneof(valid, ...breakers);

  return parts.map((part) => {
    const path = template.replace(/\{([^}]+)\}/g, (_m, key: string) =>
      encodeURIComponent(part.params[key] ?? 'x'),
    );
    const query = part.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const headers: Record<string, string> = { ...(options.headers ?? {}), ...part.headers };
    if (part.body !== undefined) headers['content-type'] = 'application/json';
    return {
      operation: name,
      method,
      path,
      query,
      headers,
      ...(part.body === undefined ? {} : { body: part.body }),
      valid: part.valid,
      ...(part.why === undefined ? {} : { why: part.why }),
    };
  });
}
