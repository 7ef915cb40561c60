import type { JsonSchema } from './types.js';

/**
 * JSON Schemas of the documents every route answers with, as OpenAPI components: JSON:API 1.0
 * (https://jsonapi.org/format/1.0/) resource, collection, meta and error documents, and RFC 9457
 * problem details. They say what a client can rely on, no more: attributes are described per route.
 */
/** JSON:API `links` and `meta` members, as every document schema here and per resource type uses them. */
export const links: JsonSchema = {
  type: 'object',
  additionalProperties: { type: ['string', 'object', 'null'] },
};
export const meta: JsonSchema = { type: 'object' };

export const DOCUMENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Resource: {
    type: 'object',
    required: ['type', 'id'],
    properties: {
      type: { type: 'string' },
      id: { type: 'string' },
      attributes: { type: 'object' },
      relationships: { type: 'object' },
      links,
      meta,
    },
  },
  ResourceDocument: {
    type: 'object',
    required: ['data'],
    properties: {
      data: { oneOf: [{ $ref: '#/components/schemas/Resource' }, { type: 'null' }] },
      included: { type: 'array', items: { $ref: '#/components/schemas/Resource' } },
      links,
      meta,
      jsonapi: { type: 'object' },
    },
  },
  CollectionDocument: {
    type: 'object',
    required: ['data'],
    properties: {
      data: { type: 'array', items: { $ref: '#/components/schemas/Resource' } },
      included: { type: 'array', items: { $ref: '#/components/schemas/Resource' } },
      links,
      meta,
      jsonapi: { type: 'object' },
    },
  },
  MetaDocument: {
    type: 'object',
    required: ['meta'],
    properties: { meta, links, jsonapi: { type: 'object' } },
  },
  ErrorObject: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      status: { type: 'string', pattern: '^[1-5][0-9][0-9]$' },
      code: { type: 'string' },
      title: { type: 'string' },
      detail: { type: 'string' },
      source: {
        type: 'object',
        properties: {
          pointer: { type: 'string' },
          parameter: { type: 'string' },
          header: { type: 'string' },
        },
      },
      links,
      meta,
    },
  },
  ErrorDocument: {
    type: 'object',
    required: ['errors'],
    properties: {
      errors: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/ErrorObject' } },
      meta,
      links,
      jsonapi: { type: 'object' },
    },
  },
  /** RFC 9457 problem details, with the members this library adds (section 3.2 extensions). */
  Problem: {
    type: 'object',
    properties: {
      type: { type: 'string', format: 'uri-reference' },
      title: { type: 'string' },
      status: { type: 'integer', format: 'int32', minimum: 100, maximum: 599 },
      detail: { type: 'string' },
      instance: { type: 'string', format: 'uri-reference' },
      code: { type: 'string' },
      errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorObject' } },
      meta,
    },
  },
};

/** The component each documented body kind refers to. */
export const KIND_SCHEMAS = {
  resource: '#/components/schemas/ResourceDocument',
  collection: '#/components/schemas/CollectionDocument',
  meta: '#/components/schemas/MetaDocument',
  errors: '#/components/schemas/ErrorDocument',
} as const;
