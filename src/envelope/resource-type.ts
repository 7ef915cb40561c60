import type { Principal } from '../http/types.js';
import type { Links, Relationship, ResourceObject } from './types.js';

/** Decides whether one viewer may see one attribute of one record. */
export type AttributeRule<R> = (record: R, viewer: Principal | undefined) => boolean;

export interface ResourceTypeOptions<R, K extends keyof R & string> {
  /** The JSON:API `type`, a plural noun (`books`). */
  readonly type: string;
  /** The record's id, rendered as a string as JSON:API requires. */
  readonly id: (record: R) => string | number;
  /**
   * The attributes that may appear in a response: an explicit allow-list. A field added to a stored
   * record later never reaches a response until it is listed here.
   */
  readonly attributes: readonly K[];
  /** Per-viewer rules for listed attributes (e.g. `email` only for its owner). Without a rule, everyone sees it. */
  readonly visibleTo?: Partial<Record<K, AttributeRule<R>>>;
  readonly links?: (record: R) => Links;
  readonly relationships?: (record: R) => Readonly<Record<string, Relationship>>;
}

/** Renders records of one kind as resource objects. */
export interface ResourceType<R, K extends keyof R & string> {
  readonly type: string;
  readonly attributes: readonly K[];
  /** The resource object for `record` as `viewer` may see it. */
  toResource(
    record: R,
    viewer?: Principal,
    fields?: ReadonlySet<string>,
  ): ResourceObject<Partial<Pick<R, K>>>;
  /** The resource identifier of `record`. */
  identify(record: R): { type: string; id: string };
}

/**
 * Define how records of one type become resource objects, with an attribute allow-list and
 * per-viewer visibility (no superfluous or sensitive information; OWASP API3:2023).
 *
 * @example
 * const books = defineResourceType<Book, 'title' | 'author'>({
 *   type: 'books', id: (b) => b.id, attributes: ['title', 'author'],
 *   links: (b) => ({ self: `/books/${b.id}` }),
 * });
 */
export function defineResourceType<R, K extends keyof R & string>(
  options: ResourceTypeOptions<R, K>,
): ResourceType<R, K> {
  const attributes = Object.freeze([...options.attributes]);
  const rules: Partial<Record<K, AttributeRule<R>>> = options.visibleTo ?? {};
  const { type, id, links, relationships } = options;
  for (const name of attributes) {
    // JSON:API 1.0 "Fields": a resource cannot have an attribute named `type` or `id`.
    if (name === 'type' || name === 'id') {
      throw new TypeError(
        `defineResourceType(${type}): "${name}" cannot be an attribute (JSON:API 1.0 Fields)`,
      );
    }
  }
  for (const name of Object.keys(rules)) {
    if (!attributes.includes(name as K)) {
      throw new TypeError(
        `defineResourceType(${type}): a visibility rule names "${name}", which is not an attribute`,
      );
    }
  }
  return {
    type,
    attributes,
    identify: (record) => ({ type, id: String(id(record)) }),
    toResource(record, viewer, fields) {
      const picked: Partial<Pick<R, K>> = {};
      for (const name of attributes) {
        if (fields !== undefined && !fields.has(name)) continue;
        const rule = rules[name];
        if (rule !== undefined && !rule(record, viewer)) continue;
        picked[name] = record[name];
      }
      const resource: {
        type: string;
        id: string;
        attributes: Partial<Pick<R, K>>;
        relationships?: Readonly<Record<string, Relationship>>;
        links?: Links;
      } = { type, id: String(id(record)), attributes: picked };
      if (relationships !== undefined) resource.relationships = relationships(record);
      if (links !== undefined) resource.links = links(record);
      return resource;
    },
  };
}
