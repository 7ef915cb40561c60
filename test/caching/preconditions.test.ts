import fc from 'fast-check';
import fresh from 'fresh';
import { describe, expect, it } from 'vitest';
import {
  decidePreconditions,
  evaluatePreconditions,
  type PreconditionOutcome,
} from '../../src/caching/index.js';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const T = Date.UTC(2024, 0, 10, 10, 0, 0); // a modification time
const imf = (time: number) => new Date(time).toUTCString();

describe('when no precondition is present', () => {
  it('proceeds, for every method', () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'POST']) {
      expect(
        evaluatePreconditions({
          method,
          headers: {},
          current: { exists: true, etag: '"a"', lastModified: T },
        }),
      ).toBe('proceed');
    }
  });
});

describe('when If-Match is present (RFC 9110 section 13.1.1)', () => {
  const current = { exists: true, etag: '"v2"', lastModified: T };
  const run = (ifMatch: string, method = 'PATCH', extra = {}) =>
    evaluatePreconditions({ method, headers: { ifMatch, ...extra }, current });

  it('proceeds when a listed tag matches strongly', () => {
    expect(run('"v1", "v2"')).toBe('proceed');
  });
  it('fails with 412 when no tag matches', () => {
    expect(run('"v1"')).toBe('precondition-failed');
  });
  it('uses strong comparison: a weak tag never matches', () => {
    expect(run('W/"v2"')).toBe('precondition-failed');
    expect(
      evaluatePreconditions({
        method: 'PATCH',
        headers: { ifMatch: '"v2"' },
        current: { exists: true, etag: 'W/"v2"' },
      }),
    ).toBe('precondition-failed');
  });
  it('fails for GET too (412, not 304)', () => {
    expect(run('"v1"', 'GET')).toBe('precondition-failed');
  });
  it('* holds when the resource exists and fails when it does not', () => {
    expect(run('*')).toBe('proceed');
    expect(
      evaluatePreconditions({ method: 'PUT', headers: { ifMatch: '*' }, current: { exists: false } }),
    ).toBe('precondition-failed');
  });
  it('fails when the resource has no entity tag', () => {
    expect(
      evaluatePreconditions({
        method: 'PATCH',
        headers: { ifMatch: '"v2"' },
        current: { exists: true, lastModified: T },
      }),
    ).toBe('precondition-failed');
  });
  it('fails when every member is unparseable (nothing can match)', () => {
    expect(run('v2, w/"v2"')).toBe('precondition-failed');
  });
  it('makes If-Unmodified-Since irrelevant', () => {
    expect(run('"v2"', 'PATCH', { ifUnmodifiedSince: imf(T - 60_000) })).toBe('proceed');
  });
  it('counts an empty field value as absent', () => {
    expect(run('  ')).toBe('proceed');
  });
});

describe('when If-Unmodified-Since is present without If-Match (RFC 9110 section 13.1.4)', () => {
  const current = { exists: true, etag: '"v2"', lastModified: T + 500 };
  const run = (ifUnmodifiedSince: string, method = 'DELETE') =>
    evaluatePreconditions({ method, headers: { ifUnmodifiedSince }, current, now: NOW });

  it('proceeds when the resource was not modified after the date (sub-second times truncated)', () => {
    expect(run(imf(T))).toBe('proceed');
    expect(run(imf(T + 60_000))).toBe('proceed');
  });
  it('fails with 412 when it was modified after the date', () => {
    expect(run(imf(T - 1000))).toBe('precondition-failed');
    expect(run(imf(T - 1000), 'GET')).toBe('precondition-failed');
  });
  it('is ignored when the date is invalid or a list', () => {
    expect(run('last tuesday')).toBe('proceed');
    expect(run(`${imf(T - 1000)}, ${imf(T - 2000)}`)).toBe('proceed');
  });
  it('is ignored when the resource has no modification date', () => {
    expect(
      evaluatePreconditions({
        method: 'DELETE',
        headers: { ifUnmodifiedSince: imf(0) },
        current: { exists: true },
      }),
    ).toBe('proceed');
  });
});

describe('when If-None-Match is present (RFC 9110 section 13.1.2)', () => {
  const current = { exists: true, etag: '"v2"', lastModified: T };
  const run = (ifNoneMatch: string, method = 'GET', extra = {}) =>
    evaluatePreconditions({ method, headers: { ifNoneMatch, ...extra }, current });

  it('answers 304 to GET and HEAD when a tag matches', () => {
    expect(run('"v1", "v2"')).toBe('not-modified');
    expect(run('"v2"', 'HEAD')).toBe('not-modified');
  });
  it('answers 412 to other methods when a tag matches', () => {
    expect(run('"v2"', 'PUT')).toBe('precondition-failed');
    expect(run('"v2"', 'POST')).toBe('precondition-failed');
  });
  it('uses weak comparison', () => {
    expect(run('W/"v2"')).toBe('not-modified');
  });
  it('proceeds when nothing matches', () => {
    expect(run('"v1", "v3"')).toBe('proceed');
  });
  it('* fails when the resource exists and holds when it does not', () => {
    expect(run('*')).toBe('not-modified');
    expect(run('*', 'PUT')).toBe('precondition-failed');
    expect(
      evaluatePreconditions({ method: 'PUT', headers: { ifNoneMatch: '*' }, current: { exists: false } }),
    ).toBe('proceed');
  });
  it('makes If-Modified-Since irrelevant', () => {
    expect(run('"v1"', 'GET', { ifModifiedSince: imf(T + 1000) })).toBe('proceed');
  });
  it('is evaluated after a true If-Match', () => {
    expect(run('"v2"', 'PUT', { ifMatch: '"v2"' })).toBe('precondition-failed');
  });
  it('reads tags with commas inside quotes, odd whitespace and empty members', () => {
    expect(
      evaluatePreconditions({
        method: 'GET',
        headers: { ifNoneMatch: ' ,, "x, y" ,\t,W/"a,b"  ' },
        current: { exists: true, etag: '"a,b"' },
      }),
    ).toBe('not-modified');
  });
});

describe('when If-Modified-Since is present without If-None-Match (RFC 9110 section 13.1.3)', () => {
  const current = { exists: true, etag: '"v2"', lastModified: T + 999 };
  const run = (ifModifiedSince: string, method = 'GET') =>
    evaluatePreconditions({ method, headers: { ifModifiedSince }, current, now: NOW });

  it('answers 304 when the resource is not newer than the date', () => {
    expect(run(imf(T))).toBe('not-modified');
    expect(run(imf(T + 5000), 'HEAD')).toBe('not-modified');
  });
  it('proceeds when the resource is newer', () => {
    expect(run(imf(T - 1000))).toBe('proceed');
  });
  it('is ignored for methods other than GET and HEAD', () => {
    expect(run(imf(T), 'PUT')).toBe('proceed');
  });
  it('is ignored when the date is not a valid HTTP-date', () => {
    expect(run('2024-01-10T10:00:00Z')).toBe('proceed');
    expect(run(`${imf(T)}, ${imf(T)}`)).toBe('proceed');
  });
  it('accepts the obsolete formats', () => {
    expect(run('Wednesday, 10-Jan-24 10:00:00 GMT')).toBe('not-modified');
    expect(run('Wed Jan 10 10:00:00 2024')).toBe('not-modified');
  });
});

describe('when the current entity tag is malformed', () => {
  it('throws a TypeError (a programming error), whatever the request', () => {
    expect(() =>
      evaluatePreconditions({ method: 'GET', headers: {}, current: { exists: true, etag: 'v1' } }),
    ).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------------------------------------
// An independent model of RFC 9110 section 13.2.2. The generators know what each header *means*
// (which tags a list holds, which instant a date names, or that it is invalid), so the model never
// parses: it only applies the rules to those meanings.

interface Tag {
  readonly weak: boolean;
  readonly opaque: string;
}
type Member = { readonly tag: Tag } | { readonly junk: string } | { readonly empty: true };
interface TagListField {
  readonly text: string | undefined;
  readonly star: boolean;
  readonly tags: readonly Tag[];
}
interface DateField {
  readonly text: string | undefined;
  readonly time: number | undefined;
}
interface Current {
  readonly exists: boolean;
  readonly etag: Tag | undefined;
  readonly lastModified: number | undefined;
}

const OPAQUES = ['', 'a', 'b', 'a,b', 'v1', 'W/', '\u00e9\u00ff'];
const tagArb: fc.Arbitrary<Tag> = fc.record({ weak: fc.boolean(), opaque: fc.constantFrom(...OPAQUES) });
const renderTag = (tag: Tag) => `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
const ows = fc.constantFrom('', ' ', '\t', '  ', ' \t');
const junk = fc.constantFrom('a', 'w/"a"', 'W/a', '"a" "b"', '"a"b', "'a'", '*', 'W/ "a"', '"a b"', 'W/""x');
const memberArb: fc.Arbitrary<Member> = fc.oneof(
  { weight: 4, arbitrary: tagArb.map((tag) => ({ tag })) },
  { weight: 1, arbitrary: junk.map((text) => ({ junk: text })) },
  { weight: 1, arbitrary: fc.constant({ empty: true as const }) },
);

const tagListField: fc.Arbitrary<TagListField> = fc.oneof(
  fc.constant({ text: undefined, star: false, tags: [] }),
  ows.map((pad) => ({ text: `${pad}*${pad}`, star: true, tags: [] })),
  fc.array(fc.tuple(ows, memberArb, ows), { minLength: 1, maxLength: 5 }).map((items) => {
    const text = items
      .map(
        ([before, m, after]) => before + ('tag' in m ? renderTag(m.tag) : 'junk' in m ? m.junk : '') + after,
      )
      .join(',');
    const tags = items.flatMap(([, m]) => ('tag' in m ? [m.tag] : []));
    const trimmed = text.replace(/^[ \t]+|[ \t]+$/g, '');
    // The field is "*" only when that is its whole value; an empty value carries no condition.
    if (trimmed === '*') return { text, star: true, tags: [] };
    if (trimmed === '') return { text: undefined, star: false, tags: [] };
    return { text, star: false, tags };
  }),
);

const SECOND_OFFSETS = [-2, -1, 0, 1, 2];
const DAYS_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');
const clock = (d: Date) => `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
const rfc850 = (time: number) => {
  const d = new Date(time);
  return `${DAYS_LONG[d.getUTCDay()]}, ${pad2(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad2(d.getUTCFullYear() % 100)} ${clock(d)} GMT`;
};
const asctime = (time: number) => {
  const d = new Date(time);
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${DAYS_LONG[d.getUTCDay()]!.slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${day} ${clock(d)} ${d.getUTCFullYear()}`;
};

// Instants near T (so they collide with the current modification time), plus any time at all.
const instant = fc.oneof(
  fc.constantFrom(...SECOND_OFFSETS).map((k) => T + k * 1000),
  fc.integer({ min: 0, max: Date.UTC(2075, 0, 1) / 1000 }).map((s) => s * 1000),
);
const dateField: fc.Arbitrary<DateField> = fc.oneof(
  fc.constant({ text: undefined, time: undefined }),
  instant.map((time) => ({ text: new Date(time).toUTCString(), time })),
  instant.map((time) => ({ text: asctime(time), time })),
  // rfc850 two-digit years are only unambiguous within 50 years of NOW.
  instant
    .filter((time) => Math.abs(new Date(time).getUTCFullYear() - 2025) < 49)
    .map((time) => ({ text: rfc850(time), time })),
  fc.string({ maxLength: 20 }).map((text) => ({ text, time: undefined })),
  instant.map((time) => ({ text: new Date(time).toISOString(), time: undefined })),
  instant.map((time) => ({ text: new Date(time).toUTCString().toLowerCase(), time: undefined })),
  instant.map((time) => ({
    text: `${new Date(time).toUTCString()}, ${new Date(time).toUTCString()}`,
    time: undefined,
  })),
  fc.constant({ text: 'Sat, 31 Feb 2024 10:00:00 GMT', time: undefined }),
  fc.constant({ text: 'Wed, 10 Jan 2024 25:00:00 GMT', time: undefined }),
);
const currentArb: fc.Arbitrary<Current> = fc.record({
  exists: fc.boolean(),
  etag: fc.option(tagArb, { nil: undefined }),
  // Sub-second parts: HTTP-date has one-second precision.
  lastModified: fc.option(
    fc
      .tuple(fc.constantFrom(...SECOND_OFFSETS), fc.integer({ min: 0, max: 999 }))
      .map(([k, ms]) => T + k * 1000 + ms),
    { nil: undefined },
  ),
});
const methodArb = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');

function model(
  method: string,
  ifMatch: TagListField,
  ifNoneMatch: TagListField,
  ifModifiedSince: DateField,
  ifUnmodifiedSince: DateField,
  current: Current,
): PreconditionOutcome {
  const etag = current.exists ? current.etag : undefined;
  const modified =
    current.exists && current.lastModified !== undefined
      ? current.lastModified - (current.lastModified % 1000)
      : undefined;
  const getOrHead = method === 'GET' || method === 'HEAD';
  // Step 1: If-Match, strong comparison.
  if (ifMatch.text !== undefined) {
    const holds = ifMatch.star
      ? current.exists
      : ifMatch.tags.some((t) => etag !== undefined && !t.weak && !etag.weak && t.opaque === etag.opaque);
    if (!holds) return 'precondition-failed';
  }
  // Step 2: If-Unmodified-Since, only without If-Match, only a valid date and a known modification time.
  else if (ifUnmodifiedSince.time !== undefined && modified !== undefined) {
    if (modified > ifUnmodifiedSince.time) return 'precondition-failed';
  }
  // Step 3: If-None-Match, weak comparison.
  if (ifNoneMatch.text !== undefined) {
    const matched = ifNoneMatch.star
      ? current.exists
      : ifNoneMatch.tags.some((t) => etag !== undefined && t.opaque === etag.opaque);
    if (matched) return getOrHead ? 'not-modified' : 'precondition-failed';
  }
  // Step 4: If-Modified-Since, GET/HEAD only, without If-None-Match.
  else if (getOrHead && ifModifiedSince.time !== undefined && modified !== undefined) {
    if (modified <= ifModifiedSince.time) return 'not-modified';
  }
  return 'proceed';
}

describe('for any request and any current state', () => {
  it('evaluatePreconditions agrees with an independent model of RFC 9110 section 13.2.2', () => {
    fc.assert(
      fc.property(
        methodArb,
        tagListField,
        tagListField,
        dateField,
        dateField,
        currentArb,
        (method, ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince, current) => {
          const outcome = evaluatePreconditions({
            method,
            headers: {
              ifMatch: ifMatch.text,
              ifNoneMatch: ifNoneMatch.text,
              ifModifiedSince: ifModifiedSince.text,
              ifUnmodifiedSince: ifUnmodifiedSince.text,
            },
            current: {
              exists: current.exists,
              etag: current.etag && renderTag(current.etag),
              lastModified: current.lastModified,
            },
            now: NOW,
          });
          expect(outcome).toBe(
            model(method, ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince, current),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('never throws on arbitrary header text', () => {
    fc.assert(
      fc.property(methodArb, fc.string(), fc.string(), fc.string(), fc.string(), (method, a, b, c, d) => {
        const outcome = evaluatePreconditions({
          method,
          headers: { ifMatch: a, ifNoneMatch: b, ifModifiedSince: c, ifUnmodifiedSince: d },
          current: { exists: true, etag: '"x"', lastModified: T },
        });
        expect(['proceed', 'not-modified', 'precondition-failed']).toContain(outcome);
      }),
    );
  });
});

describe('when compared with jshttp fresh on the GET cases it covers', () => {
  // fresh splits lists on commas without quote handling and parses dates with Date.parse, so the
  // shared ground is: well-formed lists of comma-free tags, IMF-fixdates, an existing resource.
  const simpleTag = fc.record({ weak: fc.boolean(), opaque: fc.constantFrom('a', 'b', 'v1', '') });
  const ifNoneMatch = fc.option(
    fc.oneof(
      fc.constant('*'),
      fc.array(simpleTag, { minLength: 1, maxLength: 3 }).map((tags) => tags.map(renderTag).join(', ')),
    ),
    { nil: undefined },
  );
  const ifModifiedSince = fc.option(
    fc.constantFrom(...SECOND_OFFSETS).map((k) => new Date(T + k * 1000).toUTCString()),
    { nil: undefined },
  );
  const lastModified = fc.option(
    fc.constantFrom(...SECOND_OFFSETS).map((k) => T + k * 1000),
    { nil: undefined },
  );

  it('answers 304 exactly when fresh says the cached response is fresh', () => {
    fc.assert(
      fc.property(
        ifNoneMatch,
        ifModifiedSince,
        fc.option(simpleTag, { nil: undefined }),
        lastModified,
        (inm, ims, tag, lm) => {
          const etag = tag && renderTag(tag);
          const requestHeaders: Record<string, string> = {};
          if (inm !== undefined) requestHeaders['if-none-match'] = inm;
          if (ims !== undefined) requestHeaders['if-modified-since'] = ims;
          const responseHeaders: Record<string, string> = {};
          if (etag !== undefined) responseHeaders.etag = etag;
          if (lm !== undefined) responseHeaders['last-modified'] = new Date(lm).toUTCString();
          const outcome = evaluatePreconditions({
            method: 'GET',
            headers: { ifNoneMatch: inm, ifModifiedSince: ims },
            current: { exists: true, etag, lastModified: lm },
          });
          expect(outcome === 'not-modified').toBe(fresh(requestHeaders, responseHeaders));
          expect(outcome).not.toBe('precondition-failed');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('which field decided, and the dates that decide nothing', () => {
  const current = { exists: true, etag: '"v2"', lastModified: T };
  const decide = (method: string, headers: object, now = NOW, state: object = current) =>
    decidePreconditions({ method, headers, current: state as typeof current, now });

  it('names the field that decided', () => {
    expect(decide('PATCH', { ifMatch: '"v1"' })).toEqual({
      outcome: 'precondition-failed',
      decidedBy: 'If-Match',
    });
    expect(decide('PATCH', { ifUnmodifiedSince: imf(T - 1000) })).toEqual({
      outcome: 'precondition-failed',
      decidedBy: 'If-Unmodified-Since',
    });
    expect(decide('GET', { ifNoneMatch: '"v2"' })).toEqual({
      outcome: 'not-modified',
      decidedBy: 'If-None-Match',
    });
    expect(decide('GET', { ifModifiedSince: imf(T) })).toEqual({
      outcome: 'not-modified',
      decidedBy: 'If-Modified-Since',
    });
  });

  it('If-Unmodified-Since: proceeds when unmodified since, when the date is not one, when no time is known', () => {
    expect(decide('PATCH', { ifUnmodifiedSince: imf(T) }).outcome).toBe('proceed');
    expect(decide('PATCH', { ifUnmodifiedSince: 'yesterday' }).outcome).toBe('proceed');
    expect(
      decide('PATCH', { ifUnmodifiedSince: imf(T - 1000) }, NOW, { exists: true, etag: '"v2"' }).outcome,
    ).toBe('proceed');
  });

  it('If-Modified-Since: proceeds when modified since, when the date is not one, when no time is known', () => {
    expect(decide('GET', { ifModifiedSince: imf(T - 1000) }).outcome).toBe('proceed');
    expect(decide('GET', { ifModifiedSince: 'yesterday' }).outcome).toBe('proceed');
    expect(decide('GET', { ifModifiedSince: imf(T) }, NOW, { exists: true, etag: '"v2"' }).outcome).toBe(
      'proceed',
    );
  });

  it("reads a two-digit year against the caller's now (RFC 9110 section 5.6.7), not the clock's", () => {
    // Seen from 1990, "45" is 1945 (2045 is more than 50 years ahead): T, in 2024, is after it.
    const rfc850 = 'Wednesday, 10-Jan-45 10:00:00 GMT';
    expect(decide('PATCH', { ifUnmodifiedSince: rfc850 }, Date.UTC(1990, 0, 1)).outcome).toBe(
      'precondition-failed',
    );
    expect(decide('PATCH', { ifUnmodifiedSince: rfc850 }, Date.UTC(2030, 0, 1)).outcome).toBe('proceed');
  });

  it('takes lastModified as a Date too, and refuses one that is not a time', () => {
    expect(
      decide('GET', { ifModifiedSince: imf(T) }, NOW, { exists: true, lastModified: new Date(T + 999) })
        .outcome,
    ).toBe('not-modified');
    expect(() => decide('GET', {}, NOW, { exists: true, lastModified: new Date(Number.NaN) })).toThrow(
      new TypeError('lastModified must be a valid time, got Invalid Date'),
    );
    expect(() => decide('GET', {}, NOW, { exists: true, lastModified: Number.NaN })).toThrow(
      new TypeError('lastModified must be a valid time, got NaN'),
    );
  });
});
