/**
 * JSON:API 1.0 document shapes (https://jsonapi.org/format/1.0/#document-structure), as used by the
 * JSON:API 1.0 envelope: top-level `data`, `errors`, `meta`, `links`, `included`. The types keep `data` and
 * `errors` apart and allow `included` only beside `data`.
 */

export type Meta = Readonly<Record<string, unknown>>;

/** A link: a URL string or a link object. */
export type Link = string | { readonly href: string; readonly meta?: Meta };
export type Links = Readonly<Record<string, Link | null>>;

export interface ResourceIdentifier {
  readonly type: string;
  readonly id: string;
  readonly meta?: Meta;
}

/** Resource linkage: `null` for an empty to-one, `[]` for an empty to-many. */
export type Linkage = ResourceIdentifier | null | readonly ResourceIdentifier[];

export interface Relationship {
  readonly data?: Linkage;
  readonly links?: { readonly self?: Link; readonly related?: Link };
  readonly meta?: Meta;
}

export type Attributes = Readonly<Record<string, unknown>>;

export interface ResourceObject<A extends Attributes = Attributes> {
  readonly type: string;
  readonly id: string;
  readonly attributes?: A;
  readonly relationships?: Readonly<Record<string, Relationship>>;
  readonly links?: Links;
  readonly meta?: Meta;
}

/** Primary data: one resource, none (`null`), or a collection. */
export type PrimaryData<A extends Attributes = Attributes> =
  | ResourceObject<A>
  | null
  | readonly ResourceObject<A>[];

/** A document with primary data. `errors` cannot appear beside `data`. */
export interface DataDocument<D extends PrimaryData = PrimaryData> {
  readonly data: D;
  readonly included?: readonly ResourceObject[];
  readonly links?: Links;
  readonly meta?: Meta;
  readonly errors?: never;
}

/** A document with only meta information. */
export interface MetaDocument {
  readonly meta: Meta;
  readonly links?: Links;
  readonly data?: never;
  readonly errors?: never;
  readonly included?: never;
}
