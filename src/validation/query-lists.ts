import type * as t from 'io-ts';
import { ownSchemaOf } from './describe.js';

/** What separates the members of a list-valued query parameter's text (`sort=-code,name`). */
export const LIST_SEPARATOR = ',';

/**
 * Whether a query codec decodes a list: the JSON Schema it states about itself is an array
 * (`queryList`, `querySort`, a codec given an array schema with `withSchema`, or a `refine` of one),
 * which is what the OpenAPI document says of the parameter. Its text is the members joined by commas
 * (OpenAPI 3.1, Parameter Object, Style Values: `form`), so values given separately are one list
 * joined. Reads only what the codec states (no schema derivation), so the core loads no codec library.
 */
export function isListValued(codec: t.Any): boolean {
  let current: t.Any | undefined = codec;
  while (current !== undefined) {
    const type = ownSchemaOf(current)?.type;
    if (type !== undefined) return type === 'array';
    // A refinement's own schema adds keywords to its base's: look at the base.
    current =
      (current as { readonly _tag?: string })._tag === 'RefinementType'
        ? (current as t.RefinementC<t.Any>).type
        : undefined;
  }
  return false;
}
