import { fc, test } from '@fast-check/vitest';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { assertCompatibleChange, compatibilityProblems } from '../../src/versioning/compatibility.js';

const UserV1 = t.intersection([
  t.type({ name: t.string, email: t.string, tags: t.array(t.string) }),
  t.partial({ nickname: t.string }),
]);

describe('assertCompatibleChange', () => {
  describe('when the change is compatible (seed 9.4)', () => {
    it('accepts the same codec', () => {
      expect(() => assertCompatibleChange(UserV1, UserV1)).not.toThrow();
    });

    it('accepts an added optional field, also written as a separate t.partial', () => {
      const withOptional = t.intersection([UserV1, t.partial({ locale: t.string })]);
      expect(() => assertCompatibleChange(UserV1, withOptional)).not.toThrow();
    });

    it('accepts the same fields regrouped, made exact or read-only', () => {
      const regrouped = t.readonly(
        t.exact(
          t.intersection([
            t.type({ email: t.string }),
            t.type({ name: t.string, tags: t.readonlyArray(t.string) }),
            t.partial({ nickname: t.string }),
          ]),
        ),
      );
      expect(compatibilityProblems(UserV1, regrouped)).toEqual([]);
    });
  });

  describe('when the change breaks clients', () => {
    it('fails when a field is removed', () => {
      const removed = t.intersection([
        t.type({ name: t.string, tags: t.array(t.string) }),
        t.partial({ nickname: t.string }),
      ]);
      expect(() => assertCompatibleChange(UserV1, removed)).toThrow(/field "email" was removed/);
    });

    it('fails when a required field is added', () => {
      const added = t.intersection([UserV1, t.type({ givenName: t.string })]);
      expect(() => assertCompatibleChange(UserV1, added)).toThrow(/required field "givenName" was added/);
    });

    it('fails when an optional field becomes required, or a required one optional', () => {
      const tightened = t.type({
        name: t.string,
        email: t.string,
        tags: t.array(t.string),
        nickname: t.string,
      });
      expect(compatibilityProblems(UserV1, tightened)).toEqual(['optional field "nickname" became required']);
      const loosened = t.partial({
        name: t.string,
        email: t.string,
        tags: t.array(t.string),
        nickname: t.string,
      });
      expect(compatibilityProblems(UserV1, loosened)).toEqual([
        'required field "name" became optional',
        'required field "email" became optional',
        'required field "tags" became optional',
      ]);
    });

    it('fails when a field changes type, naming both types', () => {
      const changed = t.intersection([
        t.type({ name: t.string, email: t.number, tags: t.array(t.string) }),
        t.partial({ nickname: t.string }),
      ]);
      expect(() => assertCompatibleChange(UserV1, changed)).toThrow(
        /field "email" changed type from string to number/,
      );
    });

    it('looks inside nested objects and arrays', () => {
      const before = t.type({
        address: t.type({ city: t.string }),
        items: t.array(t.type({ id: t.number })),
      });
      const after = t.type({ address: t.type({ town: t.string }), items: t.array(t.type({ id: t.string })) });
      expect(compatibilityProblems(before, after)).toEqual([
        'field "address.city" was removed',
        'required field "address.town" was added',
        'field "items[].id" changed type from number to string',
      ]);
    });

    it('treats an object turned into a scalar, a narrowed refinement or a changed enum as a type change', () => {
      expect(
        compatibilityProblems(t.type({ a: t.type({ b: t.string }) }), t.type({ a: t.string })),
      ).toHaveLength(1);
      expect(compatibilityProblems(t.type({ n: t.number }), t.type({ n: t.Int }))).toEqual([
        'field "n" changed type from number to Int',
      ]);
      const before = t.type({ status: t.keyof({ draft: null, published: null }) });
      const after = t.type({ status: t.keyof({ draft: null, retired: null }) });
      expect(compatibilityProblems(before, after)).toHaveLength(1);
    });

    it('lists every problem in one error', () => {
      const after = t.type({ name: t.number, givenName: t.string });
      expect(() => assertCompatibleChange(t.type({ name: t.string, email: t.string }), after)).toThrow(
        /name" changed type[\s\S]*"email" was removed[\s\S]*"givenName" was added/,
      );
    });
  });

  describe('properties', () => {
    const leafArb = fc.constantFrom<t.Mixed>(t.string, t.number, t.boolean, t.Int, t.literal('x'));
    const propsArb = fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      fc.record({ codec: leafArb, required: fc.boolean() }),
      { minKeys: 1 },
    );
    const codecOf = (props: Record<string, { codec: t.Mixed; required: boolean }>) => {
      const entries = Object.entries(props);
      const required = Object.fromEntries(
        entries.filter(([, p]) => p.required).map(([k, p]) => [k, p.codec]),
      );
      const optional = Object.fromEntries(
        entries.filter(([, p]) => !p.required).map(([k, p]) => [k, p.codec]),
      );
      return t.intersection([t.type(required), t.partial(optional)]);
    };

    test.prop([propsArb, leafArb])('adding an optional field is always compatible', (props, leaf) => {
      const before = codecOf(props);
      expect(compatibilityProblems(before, t.intersection([before, t.partial({ added: leaf })]))).toEqual([]);
    });

    test.prop([propsArb, fc.nat()])('removing any field is always reported', (props, pick) => {
      const names = Object.keys(props);
      const removed = names[pick % names.length]!;
      const after = Object.fromEntries(Object.entries(props).filter(([name]) => name !== removed));
      expect(compatibilityProblems(codecOf(props), codecOf(after))).toContain(
        `field "${removed}" was removed`,
      );
    });
  });
});
