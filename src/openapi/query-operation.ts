/**
 * Where a QUERY operation (RFC 10008) goes in a Path Item: the `query` field of OpenAPI 3.2, or in
 * 3.1, which has no field for the method, the `x-oai-additionalOperations` extension of the OpenAPI
 * Initiative's registry. 3.1 tools skip an extension, so in 3.1 the components only the QUERY
 * operations use are written into them: no tool then finds a component it thinks nothing uses.
 */
import type { JsonSchema } from '../validation/describe.js';
import {
  ADDITIONAL_OPERATIONS,
  type OpenApiHeader,
  type OpenApiOperation,
  type OpenApiPathItem,
} from './types.js';

type Components = { schemas: Record<string, JsonSchema>; headers: Record<string, OpenApiHeader> };

const PREFIX = '#/components/';

/** The path items with each QUERY operation placed for `openapi`, and the components left to list. */
export function placeQueryOperations(
  paths: Record<string, Record<string, OpenApiOperation>>,
  components: Components,
  openapi: '3.1.0' | '3.2.0',
): { items: Record<string, Record<string, unknown>>; components: Components } {
  const hasQuery = Object.values(paths).some((operations) => operations.query !== undefined);
  if (openapi === '3.2.0' || !hasQuery) return { items: paths, components };
  const lookup = (ref: string): unknown => {
    const [kind, name] = ref.slice(PREFIX.length).split('/') as ['schemas' | 'headers', string];
    return components[kind]?.[decodeURIComponent(name)];
  };
  // Every component reachable from the operations a 3.1 tool reads.
  const elsewhere = new Set<string>();
  const reach = (value: unknown): void => {
    for (const ref of refsIn(value)) {
      if (elsewhere.has(ref)) continue;
      elsewhere.add(ref);
      reach(lookup(ref));
    }
  };
  for (const operations of Object.values(paths)) {
    for (const [method, operation] of Object.entries(operations)) if (method !== 'query') reach(operation);
  }
  const inlined = new Set<string>();
  const inline = (value: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((v) => inline(v, seen));
    if (typeof value !== 'object' || value === null) return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(PREFIX) && !elsewhere.has(ref) && !seen.includes(ref)) {
      inlined.add(ref);
      return inline(lookup(ref), [...seen, ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, inline(v, seen)]));
  };
  const items: Record<string, Record<string, unknown>> = {};
  for (const [path, operations] of Object.entries(paths)) {
    const { query, ...fixed } = operations;
    items[path] =
      query === undefined
        ? operations
        : ({
            ...fixed,
            [ADDITIONAL_OPERATIONS]: { QUERY: inline(query, []) as OpenApiOperation },
          } satisfies OpenApiPathItem);
  }
  const keep = <T>(kind: 'schemas' | 'headers', all: Record<string, T>) =>
    Object.fromEntries(
      Object.entries(all).filter(([name]) => !inlined.has(`${PREFIX}${kind}/${encodeURIComponent(name)}`)),
    );
  return {
    items,
    components: {
      schemas: keep('schemas', components.schemas),
      headers: keep('headers', components.headers),
    },
  };
}

/** The local component references in a JSON value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith(PREFIX)) found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}
