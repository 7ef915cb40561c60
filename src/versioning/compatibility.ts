import type * as t from 'io-ts';

/** A field of an object codec: whether it must be present, and its codec. */
interface Field {
  readonly required: boolean;
  readonly codec: t.Mixed;
}

/** The io-ts codec shapes this check looks inside; any other codec is compared by its name. */
type Inspectable =
  | { readonly _tag: 'InterfaceType'; readonly props: t.Props }
  | { readonly _tag: 'PartialType'; readonly props: t.Props }
  | { readonly _tag: 'IntersectionType'; readonly types: readonly t.Mixed[] }
  | { readonly _tag: 'ExactType' | 'ReadonlyType' | 'RefinementType'; readonly type: t.Mixed }
  | { readonly _tag: 'ArrayType' | 'ReadonlyArrayType'; readonly type: t.Mixed };

const INSPECTABLE = new Set([
  'InterfaceType',
  'PartialType',
  'IntersectionType',
  'ExactType',
  'ReadonlyType',
  'RefinementType',
  'ArrayType',
  'ReadonlyArrayType',
]);

function inspect(codec: t.Mixed): Inspectable | undefined {
  const tag = (codec as { readonly _tag?: unknown })._tag;
  return typeof tag === 'string' && INSPECTABLE.has(tag) ? (codec as unknown as Inspectable) : undefined;
}

/**
 * The ways `after` breaks clients of `before` under the compatible-change rules (seed 9.4): an
 * existing field removed, an existing field whose type changed (its meaning changed), a required field
 * added, an optional field made required, a required field made optional (clients may rely on it).
 * Adding optional fields is compatible. Looks inside `t.type`, `t.partial`, `t.intersection`,
 * `t.exact`/`t.strict`, `t.readonly`, refinements and arrays, recursively; other codecs are compared
 * by name (`t.string`, `t.literal('a')`, a union's `"a" | "b"`, ...). Empty when compatible.
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
 * `before` (seed 9.4), so a breaking change without a new version fails the test suite.
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
    return;
  }
  const beforeItem = itemOf(before);
  const afterItem = itemOf(after);
  if (beforeItem !== undefined && afterItem !== undefined) {
    compare(beforeItem, afterItem, `${path}[]`, problems);
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
  if (before.name !== after.name)
    problems.push(`${label(path)} changed type from ${before.name} to ${after.name}`);
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

/** The fields of an object codec, or `undefined` when `codec` is not one this check can read. */
function fieldsOf(codec: t.Mixed): Map<string, Field> | undefined {
  const shape = inspect(codec);
  if (shape === undefined) return undefined;
  switch (shape._tag) {
    case 'InterfaceType':
    case 'PartialType': {
      const required = shape._tag === 'InterfaceType';
      return new Map(Object.entries(shape.props).map(([name, field]) => [name, { required, codec: field }]));
    }
    case 'IntersectionType': {
      const merged = new Map<string, Field>();
      for (const member of shape.types) {
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
    case 'ExactType':
    case 'ReadonlyType':
    case 'RefinementType':
      return fieldsOf(shape.type);
    default:
      return undefined;
  }
}

/** The element codec of an array codec (looking through `t.readonly`), or `undefined`. */
function itemOf(codec: t.Mixed): t.Mixed | undefined {
  const shape = inspect(codec);
  if (shape === undefined) return undefined;
  if (shape._tag === 'ArrayType' || shape._tag === 'ReadonlyArrayType') return shape.type;
  if (shape._tag === 'ReadonlyType') return itemOf(shape.type);
  return undefined;
}
