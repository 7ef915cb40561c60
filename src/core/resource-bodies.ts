/**
 * What a documented response body is, when not a codec: a JSON:API document kind, or typed
 * resources (JSON:API 1.0 "Resource Objects") that name their type, id and attributes' schemas.
 */
import type { AnySchema } from './route-schemas.js';

/** The JSON:API document kinds a response may carry, when no codec describes its body. */
export type DocumentKind = 'resource' | 'collection' | 'errors' | 'meta' | 'empty';

/**
 * A JSON:API resource type as an API description names it: its `type`, the codec (or Standard
 * Schema validator) of its attributes (a `strictObject`; an attribute not always sent is optional)
 * and its relationships, by name, with the resource type each names (`many` for a to-many one). See
 * `rest-conventions/openapi`. `S` is what its schemas are: `AnyCodec` once a route is registered.
 */
export interface ResourceSchema<S = AnySchema> {
  readonly type: string;
  /**
   * The codec of the resource's id as text (`numericId()`, `stringId(...)` from
   * `rest-conventions/validation`, or a validator of the text): the document gives the resource
   * object's `id` member its schema (a string, JSON:API 1.0 "Identification"; a validator's input
   * side). Declare the same codec as the `params` of the routes whose path names the resource
   * (`/books/{id}`), and both are described alike. Default: any string.
   */
  readonly id?: S;
  /** The attributes' codec; a validator's output side, as a response holds it. */
  readonly attributes: S;
  readonly relationships?: Readonly<Record<string, { readonly type: string; readonly many?: boolean }>>;
}

/**
 * A JSON:API document of typed resources: one (`resource`) or a page of them (`collection`), and the
 * types its `included` member may hold.
 */
export type ResourceBody<S = AnySchema> =
  | { readonly resource: ResourceSchema<S>; readonly included?: readonly ResourceSchema<S>[] }
  | { readonly collection: ResourceSchema<S>; readonly included?: readonly ResourceSchema<S>[] };

/** Whether a declared response body is typed resources (not a codec, not a document kind). */
export function isResourceBody<S = AnySchema>(body: unknown): body is ResourceBody<S> {
  return typeof body === 'object' && body !== null && ('resource' in body || 'collection' in body);
}

/** Whether a declared response body answers a page of resources: `'collection'` or `{ collection }`. */
export function answersCollection(body: unknown): boolean {
  return body === 'collection' || (isResourceBody(body) && 'collection' in body);
}
