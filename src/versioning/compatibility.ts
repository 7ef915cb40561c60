import * as t from 'io-ts';
import { StrictObjectType } from '../validation/codecs.js';
import type { JsonSchema } from '../validation/describe.js';
import { toJsonSchema } from '../validation/json-schema.js';
import { covers, isNarrowing } from './schema-inclusion.js';

/** A field of an object codec: whether it must be present, and its codec. */
interface Field {
  readonly required: boolean;
  readonly codec: t.Mixed;
}

/**
 * The ways `after` breaks clients of `before` under the compatible-change rules of
 * `docs/versioning.md` ("Compatible changes"): an existing field removed, an existing field whose type
 * changed (its meaning changed) or that accepts fewer values (a narrower type, enum, bounds, length or
 * an added pattern, `null` no longer allowed), a required field added, an optional field made
 * required, a required field made optional (clients may rely on it), unknown fields newly refused.
 * Adding optional fields and widening a field are compatible. Looks inside `t.type`, `t.partial`,
 * `t.intersection`, `t.exact`/`t.strict`, `strictObject`, `t.readonly`, refinements and arrays,
 * recursively, and compares the rest by the JSON Schema `toJsonSchema` derives (values accepted before
 * must still be accepted); codecs it cannot describe are compared by name. Empty when compatible.
 *
 * @example compatibilityProblems(t.type({ name: t.string }), t.type({ givenName: t.string }))
 * // ['field "name" was removed', 'required field "givenName" was added']
 */
export function compatibilityProblems(before: t.Mixed, after: t.Mixed): string[] {
  const problems: string[] = [];
  compare(before, after, '', problems);
  return problems;
}

/**
 * A test helper: throws an `Error` listing every problem when `after` is not a compatible change of
 * `before` (see {@link compatibilityProblems}), so a breaking change without a new version fails the test suite.
 *
 * @example
 * it('keeps v2 users compatible', () => assertCompatibleChange(UserV2, UserV2WithNickname));
 */
export function assertCompatibleChange(before: t.Mixed, after: t.Mixed): void {
  const problems = compatibilityProblems(before, after);
  if (problems.length > 0) {
    throw new Error(
      `Incompatible change from ${before.name} to ${after.name} (a breaking change needs a new API version):\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    );
  }
}

function compare(before: t.Mixed, after: t.Mixed, path: string, problems: string[]): void {
  const beforeFields = fieldsOf(before);
  const afterFields = fieldsOf(after);
  if (beforeFields !== undefined && afterFields !== undefined) {
    compareFields(beforeFields, afterFields, path, problems);
    if (!closed(before) && closed(after)) problems.push(`${label(path)} now refuses unknown fields`);
    return;
  }
  const beforeItem = itemOf(before);
  const afterItem = itemOf(after);
  if (beforeItem !== undefined && afterItem !== undefined) {
    compare(beforeItem, afterItem, `${path}[]`, problems);
    compareLeaf(before, after, path, problems, { itemsCompared: true });
    return;
  }
  if (
    beforeFields !== undefined ||
    afterFields !== undefined ||
    beforeItem !== undefined ||
    afterItem !== undefined
  ) {
    problems.push(`${label(path)} changed type from ${before.name} to ${after.name}`);
    return;
  }
  compareLeaf(before, after, path, problems, { itemsCompared: false });
}

/** The JSON Schema of a codec, or `undefined` when it cannot be described. */
function schemaOf(codec: t.Mixed): JsonSchema | undefined {
  try {
    const { $schema: _, ...schema } = toJsonSchema(codec);
    return schema;
  } catch {
    return undefined;
  }
}

function compareLeaf(
  before: t.Mixed,
  after: t.Mixed,
  path: string,
  problems: string[],
  options: { readonly itemsCompared: boolean },
): void {
  const was = schemaOf(before);
  const is = schemaOf(after);
  if (was === undefined || is === undefined) {
    if (before.name !== after.name)
      problems.push(`${label(path)} changed type from ${before.name} to ${after.name}`);
    return;
  }
  // Arrays whose items were compared above: only their own bounds are left to compare.
  const own = (schema: JsonSchema) => (options.itemsCompared ? { ...schema, items: {} } : schema);
  if (covers(own(is), own(was))) return;
  problems.push(
    isNarrowing(own(was), own(is))
      ? `${label(path)} was narrowed from ${before.name} to ${after.name}`
      : `${label(path)} changed type from ${before.name} to ${after.name}`,
  );
}

function compareFields(
  before: ReadonlyMap<string, Field>,
  after: ReadonlyMap<string, Field>,
  path: string,
  problems: string[],
): void {
  for (const [name, old] of before) {
    const field = `${path}${path === '' ? '' : '.'}${name}`;
    const current = after.get(name);
    if (current === undefined) {
      problems.push(`field "${field}" was removed`);
      continue;
    }
    if (!old.required && current.required) problems.push(`optional field "${field}" became required`);
    if (old.required && !current.required) problems.push(`required field "${field}" became optional`);
    compare(old.codec, current.codec, field, problems);
  }
  for (const [name, current] of after) {
    if (!before.has(name) && current.required) {
      problems.push(`required field "${path}${path === '' ? '' : '.'}${name}" was added`);
    }
  }
}

function label(path: string): string {
  return path === '' ? 'the value' : `field "${path}"`;
}

/** Whether an object codec refuses unknown fields (`strictObject`), looking through wrappers. */
function closed(codec: t.Mixed): boolean {
  if (codec instanceof StrictObjectType) return true;
  if (codec instanceof t.ReadonlyType || codec instanceof t.RefinementType || codec instanceof t.ExactType)
    return closed(codec.type);
  return false;
}

/** The fields of an object codec, or `undefined` when `codec` is not one this check can read. */
function fieldsOf(codec: t.Mixed): Map<string, Field> | undefined {
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) {
    const required = codec instanceof t.InterfaceType;
    return new Map(
      Object.entries(codec.props as t.Props).map(([name, field]) => [name, { required, codec: field }]),
    );
  }
  if (codec instanceof t.IntersectionType) {
    const merged = new Map<string, Field>();
    for (const member of codec.types as t.Mixed[]) {
      const fields = fieldsOf(member);
      if (fields === undefined) return undefined;
      for (const [name, field] of fields) {
        const known = merged.get(name);
        // A field in both a t.type and a t.partial member is required; its codec is the required one.
        if (known === undefined || (!known.required && field.required)) merged.set(name, field);
      }
    }
    return merged;
  }
  if (codec instanceof t.ExactType || codec instanceof t.ReadonlyType || codec instanceof t.RefinementType)
    return fieldsOf(codec.type);
  return undefined;
}

/** The element codec of an array codec (looking through `t.readonly` and refinements), or `undefined`. */
function itemOf(codec: t.Mixed): t.Mixed | undefined {
  if (codec instanceof t.ArrayType || codec instanceof t.ReadonlyArrayType) return codec.type;
  if (codec instanceof t.ReadonlyType || codec instanceof t.RefinementType) return itemOf(codec.type);
  return undefined;
}
