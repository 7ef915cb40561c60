import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EntityTag,
  formatEtag,
  misplacedWildcard,
  parseEntityTag,
  parseEntityTagList,
  serializeEntityTagList,
  strongMatch,
  validateEtag,
  versionEtag,
  weakMatch,
} from '../../src/caching/index.js';

// First in the file: validateEtag's one-entry cache starts out holding `""`.
describe('validateEtag before any other tag', () => {
  it('reads the empty tag "" as strong and empty', () => {
    expect(validateEtag('""')).toEqual({ weak: false, opaque: '' });
  });
});

// etagc = %x21 / %x23-7E / obs-text: every visible character but DQUOTE, plus %x80-FF.
const etagc = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).filter((c) => c !== 0x22),
  fc.integer({ min: 0x80, max: 0xff }),
);
const opaque = fc.array(etagc, { maxLength: 12 }).map((codes) => String.fromCharCode(...codes));
const entityTag: fc.Arbitrary<EntityTag> = fc.record({ weak: fc.boolean(), opaque });

describe('when parsing one entity tag', () => {
  it('reads strong and weak tags', () => {
    expect(parseEntityTag('"v1"')).toEqual({ weak: false, opaque: 'v1' });
    expect(parseEntityTag('W/"v1"')).toEqual({ weak: true, opaque: 'v1' });
    expect(parseEntityTag('""')).toEqual({ weak: false, opaque: '' });
  });

  it('refuses what the grammar refuses', () => {
    for (const text of [
      'v1',
      '"v1',
      'v1"',
      'w/"v1"',
      'W/v1',
      'W/ "v1"',
      '"a b"',
      '"a"b',
      '"a""b"',
      '*',
      '',
    ]) {
      expect(parseEntityTag(text), text).toBeUndefined();
    }
  });
});

describe('when parsing an If-Match / If-None-Match list', () => {
  it('keeps commas that are inside quotes', () => {
    expect(parseEntityTagList('"a,b", "c"')).toEqual([
      { weak: false, opaque: 'a,b' },
      { weak: false, opaque: 'c' },
    ]);
  });

  it('skips odd whitespace and empty list members', () => {
    expect(parseEntityTagList(' ,\t"a" ,, W/"b"\t,  ,')).toEqual([
      { weak: false, opaque: 'a' },
      { weak: true, opaque: 'b' },
    ]);
  });

  it('ignores members that are not entity tags and keeps the others', () => {
    expect(parseEntityTagList('abc, "ok", w/"lower", W/x, "a" "b", *')).toEqual([
      { weak: false, opaque: 'ok' },
    ]);
  });

  it('reads * only as the whole field value', () => {
    expect(parseEntityTagList('*')).toBe('*');
    expect(parseEntityTagList(' \t* ')).toBe('*');
    expect(parseEntityTagList('*, "a"')).toEqual([{ weak: false, opaque: 'a' }]);
  });

  it('gives no tags for an unterminated quote instead of failing', () => {
    expect(parseEntityTagList('"a, "b')).toEqual([]);
    expect(parseEntityTagList('"x", "open')).toEqual([{ weak: false, opaque: 'x' }]);
  });

  it('round-trips any list through serialize and parse', () => {
    fc.assert(
      fc.property(fc.array(entityTag, { maxLength: 6 }), (tags) => {
        expect(parseEntityTagList(serializeEntityTagList(tags))).toEqual(tags);
      }),
    );
  });

  it('parses the same tags whatever whitespace and empty members surround them', () => {
    const separator = fc.stringMatching(/^[ \t]{0,2}(,[ \t]{0,2}){1,3}$/);
    const padding = fc.stringMatching(/^[ \t,]{0,3}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(entityTag, separator), { maxLength: 5 }), padding, (items, lead) => {
        const text =
          lead + items.map(([tag, sep]) => `${tag.weak ? 'W/' : ''}"${tag.opaque}"${sep}`).join('');
        fc.pre(text.trim() !== '*');
        expect(parseEntityTagList(text)).toEqual(items.map(([tag]) => tag));
      }),
    );
  });
});

describe('when comparing entity tags (RFC 9110 section 8.8.3.2)', () => {
  it('follows the example table of the RFC', () => {
    const w1 = { weak: true, opaque: '1' };
    const w2 = { weak: true, opaque: '2' };
    const s1 = { weak: false, opaque: '1' };
    expect([strongMatch(w1, w1), weakMatch(w1, w1)]).toEqual([false, true]);
    expect([strongMatch(w1, w2), weakMatch(w1, w2)]).toEqual([false, false]);
    expect([strongMatch(w1, s1), weakMatch(w1, s1)]).toEqual([false, true]);
    expect([strongMatch(s1, s1), weakMatch(s1, s1)]).toEqual([true, true]);
  });

  it('a strong match is always a weak match', () => {
    fc.assert(
      fc.property(entityTag, entityTag, (a, b) => {
        if (strongMatch(a, b)) expect(weakMatch(a, b)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(opaque, (o) => strongMatch({ weak: false, opaque: o }, { weak: false, opaque: o })),
    );
  });

  it('both comparisons are symmetric', () => {
    fc.assert(
      fc.property(entityTag, entityTag, (a, b) => {
        expect(strongMatch(a, b)).toBe(strongMatch(b, a));
        expect(weakMatch(a, b)).toBe(weakMatch(b, a));
      }),
    );
  });
});

describe('when a developer supplies an entity tag', () => {
  it('formatEtag quotes a valid opaque value', () => {
    expect(formatEtag('v7')).toBe('"v7"');
    expect(formatEtag('v7', { weak: true })).toBe('W/"v7"');
    expect(versionEtag(42)).toBe('"42"');
    expect(versionEtag(42n, { weak: true })).toBe('W/"42"');
  });

  it('formatEtag throws a TypeError for characters outside etagc', () => {
    for (const bad of ['a b', 'a"b', 'tab\t', 'new\nline', 'ĀŁ'])
      expect(() => formatEtag(bad), bad).toThrow(TypeError);
    expect(() => versionEtag(Number.NaN)).toThrow(TypeError);
  });

  it('validateEtag accepts quoted tags and throws for unquoted or malformed ones', () => {
    expect(validateEtag('"v7"')).toEqual({ weak: false, opaque: 'v7' });
    expect(validateEtag('W/"v7"')).toEqual({ weak: true, opaque: 'v7' });
    for (const bad of ['v7', '"v7', 'w/"v7"', ' "v7"', '"a b"', '*'])
      expect(() => validateEtag(bad), bad).toThrow(TypeError);
  });

  it('every formatted tag validates back to its value', () => {
    fc.assert(
      fc.property(entityTag, (tag) => {
        expect(validateEtag(formatEtag(tag.opaque, { weak: tag.weak }))).toEqual(tag);
      }),
    );
  });
});

describe('a wildcard among other members (RFC 9110 sections 13.1.1-2)', () => {
  it.each([
    ['*, "1"', true],
    ['"1", *', true],
    ['"1",*', true],
    ['*, *', true],
    ['"1", * ,"2"', true],
    [' * ', false],
    ['*', false],
    ['"1", "2"', false],
    ['"a*b"', false],
    ['"a,*", "b"', false],
    ['W/"x*", "y"', false],
    ['"1", "*"', false],
  ])('misplacedWildcard(%j) is %s', (value, misplaced) => {
    expect(misplacedWildcard(value)).toBe(misplaced);
  });
});

describe('entity tags a developer supplies', () => {
  it('serializes a list: * alone, tags joined with ", ", nothing for none', () => {
    expect(serializeEntityTagList('*')).toBe('*');
    expect(serializeEntityTagList([])).toBe('');
    expect(
      serializeEntityTagList([
        { weak: false, opaque: 'a' },
        { weak: true, opaque: 'b' },
      ]),
    ).toBe('"a", W/"b"');
  });

  it('refuses an opaque value outside etagc, naming it', () => {
    expect(() => formatEtag('a b')).toThrow(
      new TypeError(`An entity tag may contain only visible characters other than '"'; got "a b"`),
    );
    expect(() => formatEtag(7 as unknown as string)).toThrow(TypeError);
  });

  it('refuses a tag that is not one, naming it, and returns the same parse for the same tag', () => {
    expect(() => validateEtag('v7')).toThrow(
      new TypeError(
        'Not an entity tag: "v7". ETags are quoted ("v7") or weak (W/"v7"); use formatEtag() to quote one.',
      ),
    );
    const quoted = { toString: () => '"v7"' } as unknown as string;
    expect(() => validateEtag(quoted)).toThrow(TypeError);
    expect(validateEtag('"same"')).toBe(validateEtag('"same"'));
    expect(validateEtag('W/"same"')).toEqual({ weak: true, opaque: 'same' });
  });

  it('quotes a version: numbers as they are, text checked', () => {
    expect(versionEtag(7)).toBe('"7"');
    expect(versionEtag(7, { weak: true })).toBe('W/"7"');
    expect(versionEtag(7n, { weak: true })).toBe('W/"7"');
    expect(versionEtag('v7', { weak: true })).toBe('W/"v7"');
    expect(() => versionEtag('v 7')).toThrow(TypeError);
    expect(() => versionEtag(Number.NaN)).toThrow(
      new TypeError('A version must be a finite number, got NaN'),
    );
  });
});
