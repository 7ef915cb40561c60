import { resolveRef } from '../openapi/refs.js';
import type { JsonSchema, OpenApiDocument, OpenApiResponse } from '../openapi/types.js';

/** What a schema says of a string that a client must match: kept equal between a path id and `data.id`. */
const ID_KEYWORDS = ['type', 'pattern', 'format'] as const;

/**
 * The schema of the `id` member of the one resource a response carries (a JSON:API document whose
 * `data` is a resource object: `data.id`), in any of its media types; `undefined` when it carries
 * none (a collection, an error, no content).
 */
export function resourceIdSchema(
  document: OpenApiDocument,
  response: OpenApiResponse | undefined,
): JsonSchema | undefined {
  for (const media of Object.values(response?.content ?? {})) {
    const body = resolveRef(document, media.schema);
    const data = resolveRef(document, propertyOf(body, 'data'));
    if (data?.type !== 'object') continue;
    const id = resolveRef(document, propertyOf(data, 'id'));
    if (id !== undefined) return id;
  }
  return undefined;
}

function propertyOf(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  const properties = schema?.properties as Readonly<Record<string, JsonSchema>> | undefined;
  return properties?.[name];
}

/**
 * Whether a path parameter's schema admits the resource's ids as the resource states them: the same
 * type, pattern and format, so a typed client passes `data.id` back into the path as it is.
 */
export function sameIdSchema(parameter: JsonSchema, id: JsonSchema): boolean {
  return ID_KEYWORDS.every((keyword) => parameter[keyword] === id[keyword]);
}

/** How a broken id schema reads in a finding (`a string matching ^[0-9]+$`). */
export function describeId(schema: JsonSchema): string {
  const type =
    typeof schema.type === 'string'
      ? `${/^[aeiou]/.test(schema.type) ? 'an' : 'a'} ${schema.type}`
      : 'a value';
  const pattern = typeof schema.pattern === 'string' ? ` matching ${schema.pattern}` : '';
  const format = typeof schema.format === 'string' ? ` (format ${schema.format})` : '';
  return `${type}${pattern}${format}`;
}
