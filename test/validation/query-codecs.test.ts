import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownSchemaOf } from '../../src/validation/describe.js';
import { queryInteger, queryList, querySort } from '../../src/validation/query-codecs.js';

const decode = <A>(
  codec: { decode(u: unknown): { _tag: 'Left' } | { _tag: 'Right'; right: A } },
  u: unknown,
) => {
  const result = codec.decode(u);
  return result._tag === 'Right' ? { ok: true as const, value: result.right } : { ok: false as const };
};

describe('query codecs', () => {
  describe('queryInteger', () => {
    const size = queryInteger({ min: 1, max: 100 });

    it('decodes integer text within bounds', () => {
      expect(decode(size, '20')).toEqual({ ok: true, value: 20 });
      expect(decode(size, '1')).toEqual({ ok: true, value: 1 });
      expect(decode(size, '100')).toEqual({ ok: true, value: 100 });
    });

    it.each(['0', '101', '1.5', '1e3', ' 2', '2 ', '', '0x10', '+5', 'NaN', '99999999999999999'])(
      'refuses %j',
      (text) => {
        expect(decode(size, text).ok).toBe(false);
      },
    );

    it('refuses a value that is not text (query values always are)', () => {
      expect(decode(size, 20).ok).toBe(false);
    });

    it('decodes exactly the decimal integers within bounds (property)', () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.integer({ min: -200, max: 200 }).map(String), fc.string({ maxLength: 6 })),
          (text) => {
            const n = Number(text);
            const expected = /^-?\d+$/.test(text) && n >= 1 && n <= 100;
            expect(decode(size, text)).toEqual(expected ? { ok: true, value: n } : { ok: false });
          },
        ),
      );
    });
  });

  describe('queryList', () => {
    const status = queryList(['draft', 'published', 'retired']);

    it('decodes comma-separated allowed tokens, collapsing duplicates', () => {
      expect(decode(status, 'draft,published,draft')).toEqual({ ok: true, value: ['draft', 'published'] });
    });

    it.each(['', 'draft,', ',draft', 'draft,,published', 'Draft', 'archived', 'draft, published'])(
      'refuses %j',
      (text) => {
        expect(decode(status, text).ok).toBe(false);
      },
    );

    it('refuses more members than there are tokens, the maxItems its schema states', () => {
      expect(ownSchemaOf(status)).toMatchObject({ type: 'array', minItems: 1, maxItems: 3 });
      expect(decode(status, 'draft,draft,draft').ok).toBe(true);
      expect(decode(status, 'draft,draft,draft,draft').ok).toBe(false);
    });

    it('decodes exactly the lists of 1 to 3 allowed tokens, duplicates collapsed (property)', () => {
      const member = fc.constantFrom('draft', 'published', 'retired', '', 'archived');
      fc.assert(
        fc.property(fc.array(member, { minLength: 1, maxLength: 6 }), (members) => {
          const allowed = members.every((m) => m === 'draft' || m === 'published' || m === 'retired');
          const expected =
            allowed && members.length <= 3 ? { ok: true, value: [...new Set(members)] } : { ok: false };
          expect(decode(status, members.join(','))).toEqual(expected);
        }),
      );
    });
  });

  describe('querySort', () => {
    const sort = querySort(['name', 'code']);

    it('decodes fields with "-" for descending, in order', () => {
      expect(decode(sort, '-code,name')).toEqual({
        ok: true,
        value: [
          { field: 'code', descending: true },
          { field: 'name', descending: false },
        ],
      });
    });

    it.each(['', 'price', 'name,name', 'name,-name', '--name', '+name', 'name,'])('refuses %j', (text) => {
      expect(decode(sort, text).ok).toBe(false);
    });

    it('round-trips through encode (property)', () => {
      const key = fc.record({
        field: fc.constantFrom('name' as const, 'code' as const),
        descending: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.uniqueArray(key, { selector: (k) => k.field, minLength: 1 }), (keys) => {
          expect(decode(sort, sort.encode(keys))).toEqual({ ok: true, value: keys });
        }),
      );
    });
  });
});
