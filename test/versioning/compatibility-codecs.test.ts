import { fc, test } from '@fast-check/vitest';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { integer, list, nullable, oneOf, strictObject, text } from '../../src/validation/index.js';
import { compatibilityProblems } from '../../src/versioning/compatibility.js';

const name = text({ maxLength: 100 });
const age = integer({ min: 0, max: 150 });

describe('compatibilityProblems on the library codecs', () => {
  it('reports a field removed from a strictObject (it was compared by display name only)', () => {
    expect(compatibilityProblems(strictObject({ name, age }), strictObject({ name }))).toEqual([
      'field "age" was removed',
    ]);
  });

  it('reports an added required field and an optional field made required', () => {
    expect(
      compatibilityProblems(strictObject({ name }, { age }), strictObject({ name, age, email: name })),
    ).toEqual(['optional field "age" became required', 'required field "email" was added']);
  });

  it('accepts an added optional field and widened bounds, lengths and enums', () => {
    const before = strictObject(
      { age, status: oneOf(['a', 'b']), tags: list(name, { maxItems: 5 }) },
      { note: name },
    );
    const after = strictObject(
      {
        age: integer({ min: 0, max: 200 }),
        status: oneOf(['a', 'b', 'c']),
        tags: list(text({ maxLength: 200 }), { maxItems: 10 }),
      },
      { note: nullable(text({ maxLength: 500 })), nickname: name },
    );
    expect(compatibilityProblems(before, after)).toEqual([]);
  });

  it('reports narrowed bounds, lengths, enums, patterns, lists and a dropped null', () => {
    const before = strictObject({
      age,
      status: oneOf(['a', 'b']),
      code: text({ maxLength: 10 }),
      note: nullable(name),
      tags: list(name, { maxItems: 5 }),
    });
    const after = strictObject({
      age: integer({ min: 18, max: 150 }),
      status: oneOf(['a']),
      code: text({ maxLength: 10, pattern: /^[A-Z]+$/ }),
      note: name,
      tags: list(name, { maxItems: 2 }),
    });
    expect(compatibilityProblems(before, after)).toEqual([
      'field "age" was narrowed from an integer from 0 to 150 to an integer from 18 to 150',
      'field "status" was narrowed from one of "a", "b" to one of "a"',
      'field "code" was narrowed from a string of 1 to 10 characters to a string of 1 to 10 characters',
      'field "note" was narrowed from a string of 1 to 100 characters or null to a string of 1 to 100 characters',
      'field "tags" was narrowed from a list of 0 to 5 a string of 1 to 100 characters to a list of 0 to 2 a string of 1 to 100 characters',
    ]);
  });

  it('reports an open object that starts refusing unknown fields', () => {
    expect(compatibilityProblems(t.type({ name }), strictObject({ name }))).toEqual([
      'the value now refuses unknown fields',
    ]);
  });
});

/**
 * An independent model: a schema is a map of fields, each required or not, holding a leaf that is a
 * set of values described by its kind; `includes(outer, inner)` is set inclusion computed from the kinds.
 */
type Leaf =
  | { readonly kind: 'int'; readonly min: number; readonly max: number; readonly nullable: boolean }
  | { readonly kind: 'text'; readonly max: number; readonly nullable: boolean }
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly nullable: boolean }
  | { readonly kind: 'bool'; readonly nullable: boolean };
type Model = Readonly<Record<string, { readonly required: boolean; readonly leaf: Leaf }>>;

function includes(outer: Leaf, inner: Leaf): boolean {
  if (inner.nullable && !outer.nullable) return false;
  switch (inner.kind) {
    case 'int':
      return outer.kind === 'int' && outer.min <= inner.min && inner.max <= outer.max;
    case 'text':
      return outer.kind === 'text' && inner.max <= outer.max;
    case 'enum':
      return (
        (outer.kind === 'enum' && inner.values.every((v) => outer.values.includes(v))) ||
        (outer.kind === 'text' && inner.values.every((v) => v.length <= outer.max))
      );
    case 'bool':
      return outer.kind === 'bool';
  }
}

/** The fields the model says break clients: removed, requiredness changed, narrowed, required added. */
function breakingFields(before: Model, after: Model): Set<string> {
  const broken = new Set<string>();
  for (const [field, old] of Object.entries(before)) {
    const now = after[field];
    if (now === undefined || now.required !== old.required || !includes(now.leaf, old.leaf))
      broken.add(field);
  }
  for (const [field, now] of Object.entries(after))
    if (before[field] === undefined && now.required) broken.add(field);
  return broken;
}

const leafArb: fc.Arbitrary<Leaf> = fc.oneof(
  fc
    .record({ a: fc.integer({ min: 0, max: 5 }), b: fc.integer({ min: 0, max: 5 }), nullable: fc.boolean() })
    .map(({ a, b, nullable }) => ({
      kind: 'int' as const,
      min: Math.min(a, b),
      max: Math.max(a, b),
      nullable,
    })),
  fc.record({
    kind: fc.constant('text' as const),
    max: fc.integer({ min: 1, max: 4 }),
    nullable: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('enum' as const),
    values: fc.uniqueArray(fc.constantFrom('a', 'bb', 'ccc', 'ddddd'), { minLength: 1, maxLength: 3 }),
    nullable: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('bool' as const), nullable: fc.boolean() }),
);
const modelArb: fc.Arbitrary<Model> = fc.dictionary(
  fc.constantFrom('a', 'b', 'c', 'd'),
  fc.record({ required: fc.boolean(), leaf: leafArb }),
  { maxKeys: 4 },
);

function codecOf(leaf: Leaf): t.Mixed {
  const base: t.Mixed =
    leaf.kind === 'int'
      ? integer({ min: leaf.min, max: leaf.max })
      : leaf.kind === 'text'
        ? text({ maxLength: leaf.max })
        : leaf.kind === 'enum'
          ? oneOf(leaf.values as [string, ...string[]])
          : t.boolean;
  return leaf.nullable ? nullable(base) : base;
}

function objectOf(model: Model) {
  const pick = (required: boolean) =>
    Object.fromEntries(
      Object.entries(model)
        .filter(([, field]) => field.required === required)
        .map(([field, { leaf }]) => [field, codecOf(leaf)]),
    );
  return strictObject(pick(true), pick(false));
}

/** The field a problem message names (`field "x" ...`, `required field "x" ...`). */
const fieldOf = (problem: string) => /field "([^"]+)"/.exec(problem)?.[1];

describe('compatibilityProblems against a model of schemas', () => {
  test.prop([modelArb, modelArb], { numRuns: 300 })(
    'names exactly the fields the model says break',
    (before, after) => {
      const problems = compatibilityProblems(objectOf(before), objectOf(after));
      expect(new Set(problems.map(fieldOf))).toEqual(breakingFields(before, after));
    },
  );

  test.prop([modelArb])('a schema is compatible with itself', (model) => {
    expect(compatibilityProblems(objectOf(model), objectOf(model))).toEqual([]);
  });
});
