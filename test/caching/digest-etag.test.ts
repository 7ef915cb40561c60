import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { digestEtag } from '../../src/caching/digest-etag.js';
import { validateEtag } from '../../src/caching/entity-tag.js';

const part = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);

/** What the digest promises to tell apart: the typed parts, in order (0 and -0 are one version). */
const identity = (parts: readonly unknown[]) =>
  JSON.stringify(
    parts.map((p) =>
      typeof p === 'bigint' ? `bigint:${p}` : p === undefined ? 'undefined' : [typeof p, p === 0 ? 0 : p],
    ),
  );

describe('digestEtag', () => {
  it('is a strong tag unless asked for a weak one', () => {
    expect(validateEtag(digestEtag(['a', 1]))).toMatchObject({ weak: false });
    expect(digestEtag(['a', 1], { weak: true })).toBe(`W/${digestEtag(['a', 1])}`);
    expect(digestEtag(['a', 1])).toMatch(/^"[0-9a-f]{16}"$/);
  });

  it('tells apart parts that would read the same when joined', () => {
    const tags = [
      ['ab', 'c'],
      ['a', 'bc'],
      ['abc'],
      [1],
      ['1'],
      [1n],
      [true],
      ['true'],
      [null],
      [undefined],
      [],
    ];
    expect(new Set(tags.map((parts) => digestEtag(parts))).size).toBe(tags.length);
  });

  it('refuses numbers that are not finite and values that are not parts', () => {
    expect(() => digestEtag([Number.NaN])).toThrow(TypeError);
    expect(() => digestEtag([Number.POSITIVE_INFINITY])).toThrow(TypeError);
    expect(() => digestEtag([{} as never])).toThrow(TypeError);
  });

  test.prop([fc.array(part, { maxLength: 8 }), fc.array(part, { maxLength: 8 })], { numRuns: 2000 })(
    'gives different parts different tags',
    (a, b) => {
      fc.pre(identity(a) !== identity(b));
      expect(digestEtag(a)).not.toBe(digestEtag(b));
    },
  );
});
