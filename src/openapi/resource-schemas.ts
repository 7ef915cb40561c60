import type { AnyCodec, ResourceBody, ResourceSchema } from '../core/route.js';
import { toJsonSchema } from '../validation/json-schema.js';
import type { ComponentRegistry } from './component-registry.js';
import type { DescribedRoute } from './described-route.js';
import { pascalCase } from './naming.js';
import { links, meta } from './schemas.js';
import type { JsonSchema } from './types.js';
import { UNDECLARED_TEXT } from './undeclared-text.js';

/**
 * Typed JSON:API 1.0 documents (https://jsonapi.org/format/1.0/) as named components: per resource
 * type its `<Type>Attributes` (from the codec), `<Type>Resource`, and the single (`<Type>Document`)
 * and page (`<Type>Collection`) documents that reference them, so generated clients type `attributes`.
 */

/** A codec's schema for use inside the document (OpenAPI 3.1 sets the dialect once, not per schema). */
export function embedded(codec: AnyCodec, where: string): JsonSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(codec, { where });
  return schema;
}

function identifier(type: string): JsonSchema {
  return {
    type: 'object',
    required: ['type', 'id'],
    properties: { type: { const: type }, id: { type: 'string' } },
  };
}

/**
 * A resource object's `id` member: the schema of the resource's id codec, which must describe a string
 * (JSON:API 1.0 "Identification"), or any string when it names none.
 */
function idSchema(resource: ResourceSchema<AnyCodec>, where: string): JsonSchema {
  if (resource.id === undefined) return { type: 'string' };
  const schema = embedded(resource.id, `${where}: ${resource.type} id`);
  if (schema.type !== 'string')
    throw new TypeError(
      `${where}: the id codec of ${resource.type} must describe a string (a JSON:API id is one: numericId() or stringId()), got ${JSON.stringify(schema.type)}`,
    );
  return schema;
}

/** `<Type>Resource`: the resource object, its attributes and relationships typed. */
function resourceRef(
  resource: ResourceSchema<AnyCodec>,
  registry: ComponentRegistry,
  where: string,
): JsonSchema {
  const name = pascalCase(resource.type);
  const attributes = registry.add(`${name}Attributes`, embedded(resource.attributes, where));
  const relationships = Object.entries(resource.relationships ?? {}).map(([relation, related]) => {
    const data = related.many
      ? { type: 'array', items: identifier(related.type) }
      : { oneOf: [identifier(related.type), { type: 'null' }] };
    return [relation, { type: 'object', properties: { data, links, meta } }] as const;
  });
  return registry.add(`${name}Resource`, {
    type: 'object',
    required: ['type', 'id', 'attributes'],
    properties: {
      type: { const: resource.type },
      id: idSchema(resource, where),
      attributes,
      ...(relationships.length > 0
        ? { relationships: { type: 'object', properties: Object.fromEntries(relationships) } }
        : {}),
      links,
      meta,
    },
  });
}

/** The `$ref` of a typed single-resource or collection document. */
export function resourceDocumentRef(
  body: ResourceBody<AnyCodec>,
  registry: ComponentRegistry,
  where: string,
): JsonSchema {
  const many = 'collection' in body;
  const primary = many ? body.collection : body.resource;
  const item = resourceRef(primary, registry, where);
  const included = (body.included ?? []).map((r) => resourceRef(r, registry, `${where}: included`));
  const name = `${pascalCase(primary.type)}${many ? 'Collection' : 'Document'}`;
  return registry.add(name, {
    type: 'object',
    required: ['data'],
    properties: {
      data: many ? { type: 'array', items: item } : item,
      ...(included.length > 0
        ? { included: { type: 'array', items: included.length === 1 ? included[0]! : { oneOf: included } } }
        : {}),
      links,
      meta,
      jsonapi: { type: 'object' },
    },
  });
}

function pathIdSchema(route: DescribedRoute, name: string, where: string): JsonSchema {
  const codec = route.params?.[name];
  return codec === undefined ? UNDECLARED_TEXT : embedded(codec, `${where}: path parameter ${name}`);
}

const WRITE_NAMES: Readonly<Record<string, string>> = { POST: 'Create', PATCH: 'Update', PUT: 'Replace' };

/**
 * A request body as the route decodes it: bare attributes as `application/json`, a resource document
 * naming the type (and the id, for an update) as `application/vnd.api+json`; both named components.
 */
export function requestBodySchemas(
  route: DescribedRoute,
  registry: ComponentRegistry,
  where: string,
):
  | {
      readonly attributes: JsonSchema;
      readonly document: JsonSchema;
      readonly example?: { readonly attributes: unknown; readonly document: unknown };
    }
  | undefined {
  const { body } = route;
  if (body === undefined) return undefined;
  // The id of the resource in the path, so it is the path parameter's schema.
  const id = body.id === undefined ? undefined : pathIdSchema(route, body.id, where);
  const name = `${pascalCase(body.type)}${WRITE_NAMES[route.method.toUpperCase()] ?? pascalCase(route.method.toLowerCase())}`;
  const attributes = registry.add(name, embedded(body.codec, where));
  const document = registry.add(`${name}Document`, {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        ...(body.id === undefined
          ? // A create takes no client-generated id (refused with 403, JSON:API 1.0 "Creating Resources").
            { required: ['type', 'attributes'], properties: { type: { const: body.type }, attributes } }
          : {
              required: ['type', 'id', 'attributes'],
              properties: { type: { const: body.type }, id, attributes },
            }),
      },
    },
  });
  if (body.example === undefined) return { attributes, document };
  // An update's example names an id its schema accepts: the id codec's own example.
  const exampleId =
    id === undefined ? undefined : ((id.examples as readonly unknown[] | undefined)?.[0] ?? '1');
  const data = {
    type: body.type,
    ...(exampleId === undefined ? {} : { id: exampleId }),
    attributes: body.example,
  };
  return { attributes, document, example: { attributes: body.example, document: { data } } };
}
