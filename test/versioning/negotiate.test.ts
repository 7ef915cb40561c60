import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { negotiateVersion, type VersionDecision } from '../../src/versioning/negotiate.js';
import { type VersionConflictRule, versionPolicy } from '../../src/versioning/policy.js';

const JSON_API = 'application/vnd.api+json';
const PLAIN_JSON = 'application/json';
const policy = versionPolicy({ supported: [1, 2], default: 1 });

const decide = (accept: string | undefined, pathVersion?: number, p = policy) =>
  negotiateVersion({ accept, pathVersion }, p);

describe('negotiateVersion', () => {
  describe('when nothing names a version', () => {
    it('chooses the default version', () => {
      expect(decide(undefined)).toEqual({
        kind: 'chosen',
        version: 1,
        source: 'default',
        mediaType: undefined,
      });
      expect(decide(`${JSON_API}, */*`)).toMatchObject({ version: 1, source: 'default' });
    });

    it('ignores a version parameter on wildcards and other media types', () => {
      expect(decide('*/*;version=2, text/html;version=2')).toMatchObject({ version: 1, source: 'default' });
    });
  });

  describe('when the path names a version', () => {
    it('serves the path version', () => {
      expect(decide(undefined, 2)).toEqual({
        kind: 'chosen',
        version: 2,
        source: 'path',
        mediaType: undefined,
      });
    });

    it('answers 404 for an unsupported path version', () => {
      expect(decide(undefined, 3)).toMatchObject({ kind: 'refused', status: 404, code: 'unknown-version' });
    });

    it('accepts an Accept version that agrees, negotiated by media type', () => {
      expect(decide(`${PLAIN_JSON};version=2`, 2)).toEqual({
        kind: 'chosen',
        version: 2,
        source: 'path',
        mediaType: PLAIN_JSON,
      });
    });

    it('answers 400 when Accept asks for another version', () => {
      expect(decide(`${JSON_API};version=2`, 1)).toMatchObject({
        kind: 'refused',
        status: 400,
        code: 'version-conflict',
        header: 'Accept',
      });
    });

    it('agrees when Accept lists the path version among others', () => {
      expect(decide(`${JSON_API};version=2, ${JSON_API};version=1;q=0.2`, 1)).toMatchObject({ version: 1 });
    });

    it('lets the path win when onConflict is "path"', () => {
      const lenient = versionPolicy({ supported: [1, 2], default: 1, onConflict: 'path' });
      expect(decide(`${JSON_API};version=2`, 1, lenient)).toMatchObject({ version: 1, source: 'path' });
    });

    it('lets Accept win when onConflict is "accept"', () => {
      const acceptFirst = versionPolicy({ supported: [1, 2], default: 1, onConflict: 'accept' });
      expect(decide(`${JSON_API};version=2`, 1, acceptFirst)).toMatchObject({ version: 2, source: 'accept' });
    });
  });

  describe('when Accept names versions', () => {
    it('chooses the named version, on PLAIN_JSON:API or plain PLAIN_JSON', () => {
      expect(decide(`${JSON_API};version=2`)).toEqual({
        kind: 'chosen',
        version: 2,
        source: 'accept',
        mediaType: JSON_API,
      });
      expect(decide(`${PLAIN_JSON};version=2`)).toMatchObject({ version: 2, mediaType: PLAIN_JSON });
    });

    it('reads charset beside version, quoted values and parameter names in any case', () => {
      expect(decide(`${PLAIN_JSON}; charset=utf-8; VERSION="2"`)).toMatchObject({
        version: 2,
        mediaType: PLAIN_JSON,
      });
    });

    it('prefers the highest q among supported versions', () => {
      expect(decide(`${JSON_API};version=1;q=0.4, ${JSON_API};version=2;q=0.9`)).toMatchObject({
        version: 2,
      });
      expect(decide(`${JSON_API};version=1, ${JSON_API};version=2;q=0.9`)).toMatchObject({ version: 1 });
    });

    it('prefers the newer version when q is equal', () => {
      expect(decide(`${JSON_API};version=1, ${JSON_API};version=2`)).toMatchObject({ version: 2 });
    });

    it('falls back to another named version the client accepts, never to an unnamed one', () => {
      expect(decide(`${JSON_API};version=3, ${PLAIN_JSON};version=2;q=0.5`)).toMatchObject({
        version: 2,
        mediaType: PLAIN_JSON,
      });
    });

    it('answers 406 listing the supported versions when none named is supported', () => {
      const decision = decide(`${JSON_API};version=3, */*`);
      expect(decision).toMatchObject({
        kind: 'refused',
        status: 406,
        code: 'unsupported-version',
        header: 'Accept',
      });
      expect(decision.kind === 'refused' && decision.detail).toContain('supported versions: 1, 2');
    });

    it('treats a non-canonical version ("02", "v2") as unsupported', () => {
      expect(decide(`${JSON_API};version=02`)).toMatchObject({ status: 406 });
      expect(decide(`${JSON_API};version=v2`)).toMatchObject({ status: 406 });
    });

    it('uses the configured status for an unsupported version', () => {
      const strict = versionPolicy({ supported: [1, 2], default: 1, unsupportedStatus: 400 });
      expect(decide(`${JSON_API};version=9`, undefined, strict)).toMatchObject({ status: 400 });
    });

    it('treats q=0 as "not acceptable"', () => {
      expect(decide(`${JSON_API};version=2;q=0, ${JSON_API};version=1;q=0.1`)).toMatchObject({ version: 1 });
      expect(decide(`${JSON_API};version=1;q=0`)).toMatchObject({
        kind: 'refused',
        status: 406,
        code: 'version-not-acceptable',
      });
      expect(decide(`${JSON_API};version=2;q=0`)).toMatchObject({ version: 1, source: 'default' });
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties. Accept headers are generated as structured ranges, then written out with random order,
// whitespace, parameter-name case and quoting. The model reads the structure, never the text.

interface Range {
  readonly type: string;
  readonly version: string | undefined;
  readonly charset: string | undefined;
  readonly q: number | undefined;
}

const MEDIA_TYPES = [JSON_API, PLAIN_JSON, 'text/html', 'application/*', '*/*', 'application/problem+json'];
const VERSIONED = [JSON_API, PLAIN_JSON];

// Biased towards versioned PLAIN_JSON types, supported versions and few distinct weights, so that ties,
// conflicts and q=0 exclusions come up often.
const rangeArb: fc.Arbitrary<Range> = fc.record({
  type: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...VERSIONED) },
    { weight: 1, arbitrary: fc.constantFrom(...MEDIA_TYPES) },
  ),
  version: fc.option(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('1', '2', '3') },
      { weight: 1, arbitrary: fc.constantFrom('4', '02', 'abc') },
    ),
    { nil: undefined, freq: 4 },
  ),
  charset: fc.option(fc.constantFrom('utf-8', 'iso-8859-1'), { nil: undefined }),
  q: fc.option(fc.constantFrom(0, 0.001, 0.5, 1), { nil: undefined }),
});

interface Style {
  readonly upperNames: boolean;
  readonly quote: boolean;
  readonly charsetFirst: boolean;
  readonly space: string;
  readonly upperType: boolean;
}

const styleArb: fc.Arbitrary<Style> = fc.record({
  upperNames: fc.boolean(),
  quote: fc.boolean(),
  charsetFirst: fc.boolean(),
  space: fc.constantFrom('', ' ', '  ', '\t'),
  upperType: fc.boolean(),
});

function write(ranges: readonly Range[], styles: readonly Style[]): string {
  return ranges
    .map((range, i) => {
      const style = styles[i % styles.length]!;
      const name = (n: string) => (style.upperNames ? n.toUpperCase() : n);
      const params: string[] = [];
      if (range.version !== undefined)
        params.push(`${name('version')}=${style.quote ? `"${range.version}"` : range.version}`);
      if (range.charset !== undefined) {
        const charset = `${name('charset')}=${range.charset}`;
        if (style.charsetFirst) params.unshift(charset);
        else params.push(charset);
      }
      if (range.q !== undefined) params.push(`${name('q')}=${range.q}`);
      const type = style.upperType ? range.type.toUpperCase() : range.type;
      const s = style.space;
      return [type, ...params].join(`${s};${s}`);
    })
    .join(`${styles[0]?.space ?? ''},${styles[0]?.space ?? ' '}`);
}

interface Setup {
  readonly supported: readonly number[];
  readonly defaultVersion: number;
  readonly onConflict: VersionConflictRule;
  readonly pathVersion: number | undefined;
}

const setupArb: fc.Arbitrary<Setup> = fc.subarray([1, 2, 3], { minLength: 1 }).chain((supported) =>
  fc.record({
    supported: fc.constant(supported),
    defaultVersion: fc.constantFrom(...supported),
    onConflict: fc.constantFrom<VersionConflictRule>('reject', 'path', 'accept'),
    pathVersion: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  }),
);

type Outcome = { version: number } | { status: number };

/** The version rules of docs/versioning.md, computed directly from the ranges. */
function model(ranges: readonly Range[], setup: Setup): Outcome {
  const { supported, pathVersion } = setup;
  if (pathVersion !== undefined && !supported.includes(pathVersion)) return { status: 404 };
  if (pathVersion !== undefined && setup.onConflict === 'path') return { version: pathVersion };
  const named = ranges.filter((r) => VERSIONED.includes(r.type) && r.version !== undefined);
  const weight = (type: string, version: number): number => {
    const qs = named.filter((r) => r.type === type && r.version === String(version)).map((r) => r.q ?? 1);
    return qs.length === 0 ? 0 : Math.max(...qs);
  };
  const clientAcceptsSomeVersion = named.some((r) => (r.q ?? 1) > 0);
  if (!clientAcceptsSomeVersion) {
    const version = pathVersion ?? setup.defaultVersion;
    const refused = named.some((r) => r.version === String(version));
    return refused ? { status: 406 } : { version };
  }
  if (pathVersion !== undefined && setup.onConflict === 'reject') {
    return VERSIONED.some((type) => weight(type, pathVersion) > 0)
      ? { version: pathVersion }
      : { status: 400 };
  }
  let best: { version: number; q: number } | undefined;
  for (const version of [...supported].sort((a, b) => b - a)) {
    for (const type of VERSIONED) {
      const q = weight(type, version);
      if (q > 0 && (best === undefined || q > best.q)) best = { version, q };
    }
  }
  return best === undefined ? { status: 406 } : { version: best.version };
}

function outcome(decision: VersionDecision): Outcome {
  return decision.kind === 'chosen' ? { version: decision.version } : { status: decision.status };
}

function decideFor(accept: string, setup: Setup): VersionDecision {
  const p = versionPolicy({
    supported: setup.supported,
    default: setup.defaultVersion,
    onConflict: setup.onConflict,
  });
  return negotiateVersion({ accept, pathVersion: setup.pathVersion }, p);
}

describe('negotiateVersion properties', () => {
  test.prop(
    [fc.array(rangeArb, { maxLength: 6 }), fc.array(styleArb, { minLength: 1, maxLength: 3 }), setupArb],
    {
      numRuns: 500,
    },
  )(
    'the chosen version and status agree with an independent model, for any Accept',
    (ranges, styles, setup) => {
      expect(outcome(decideFor(write(ranges, styles), setup))).toEqual(model(ranges, setup));
    },
  );

  test.prop([
    fc
      .array(rangeArb, { maxLength: 6 })
      .chain((ranges) =>
        fc.tuple(
          fc.constant(ranges),
          fc.shuffledSubarray(ranges, { minLength: ranges.length, maxLength: ranges.length }),
        ),
      ),
    fc.array(styleArb, { minLength: 1, maxLength: 3 }),
    fc.array(styleArb, { minLength: 1, maxLength: 3 }),
    setupArb,
  ])(
    'reordering ranges, whitespace, quoting or parameter-name case never changes the decision',
    ([ranges, reordered], styles, otherStyles, setup) => {
      expect(decideFor(write(reordered, otherStyles), setup)).toEqual(
        decideFor(write(ranges, styles), setup),
      );
    },
  );
});
