import { fc, test } from '@fast-check/vitest';
import Negotiator from 'negotiator';
import { describe, expect, it } from 'vitest';
import { negotiateVersion, parseAccept, versionPolicy } from '../../src/versioning/index.js';

const simplified = (accept: string) =>
  parseAccept(accept).map((r) => ({
    type: `${r.type}/${r.subtype}`,
    params: Object.fromEntries(r.params),
    q: r.q,
  }));

describe('parseAccept', () => {
  describe('when ranges carry parameters', () => {
    it('lower-cases type and parameter names but keeps parameter values', () => {
      expect(simplified('Application/JSON; VERSION=2; Charset=UTF-8')).toEqual([
        { type: 'application/json', params: { version: '2', charset: 'UTF-8' }, q: 1 },
      ]);
    });

    it('unquotes quoted values, including escapes and commas inside quotes', () => {
      expect(simplified('application/json;version="2";note="a, \\"b\\"; c", text/html')).toEqual([
        { type: 'application/json', params: { version: '2', note: 'a, "b"; c' }, q: 1 },
        { type: 'text/html', params: {}, q: 1 },
      ]);
    });

    it('reads the weight as q and keeps it out of the parameters', () => {
      expect(simplified('application/vnd.api+json;version=1;q=0.5, */*;q=0')).toEqual([
        { type: 'application/vnd.api+json', params: { version: '1' }, q: 0.5 },
        { type: '*/*', params: {}, q: 0 },
      ]);
    });

    it('ignores whitespace around commas, semicolons and equals signs', () => {
      expect(simplified('  application/json ;  version = 2 ;q= 0.8 ,text/plain')).toEqual([
        { type: 'application/json', params: { version: '2' }, q: 0.8 },
        { type: 'text/plain', params: {}, q: 1 },
      ]);
    });
  });

  // Versioning reads Accept with the one parser of src/http/accept.ts, jshttp negotiator's reading.
  // Until it did, it had a stricter parser of its own that dropped a whole element for a weight outside
  // the grammar, a parameter without a value or a non-token value; those are now read as negotiator
  // (Express, Koa) and response-type negotiation read them.
  describe('when an element is malformed', () => {
    it('drops an element without a slash and keeps the others', () => {
      expect(simplified('text/html, json')).toEqual([{ type: 'text/html', params: {}, q: 1 }]);
    });

    it.each([
      ['a weight above 1', 'application/json;q=1.5', { type: 'application/json', params: {}, q: 1.5 }],
      [
        'a weight with four decimals',
        'application/json;q=0.1234',
        { type: 'application/json', params: {}, q: 0.1234 },
      ],
      [
        'a parameter without a value',
        'application/json;version',
        { type: 'application/json', params: {}, q: 1 },
      ],
      [
        'an unterminated quoted string',
        'application/json;version="2',
        { type: 'application/json', params: {}, q: 1 },
      ],
      ['a wildcard type with a concrete subtype', '*/json', { type: '*/json', params: {}, q: 1 }],
    ])('reads it as negotiator does (%s)', (_, element, range) => {
      expect(simplified(`text/html, ${element}`)).toEqual([{ type: 'text/html', params: {}, q: 1 }, range]);
    });

    it('reads a weight that is no number as never acceptable', () => {
      expect(parseAccept('application/json;q=x')[0]?.q).toBeNaN();
    });

    it('accepts empty parameters (";;") as the grammar allows', () => {
      expect(simplified('application/json;;version=2')).toEqual([
        { type: 'application/json', params: { version: '2' }, q: 1 },
      ]);
    });
  });
});

const VERSIONED = 'application/vnd.api+json';
// Versioned ranges near the grammar: the policy's media type in odd case, other types, versions well-
// and ill-formed, weights well- and ill-formed, spaces and separators. Every range names a version, and no
// other parameter: an unversioned range never chooses a version (docs/versioning.md), where negotiator
// lets it match any offer, and negotiator asks an offer to carry every parameter a range names. No
// weight that is no number (`q=x`): negotiator then lets the later of two ranges of one version win
// (its comparison of NaN), where versioning counts the highest weight whatever the order (example below).
const versionedRange = fc
  .tuple(
    fc.constantFrom(VERSIONED, 'Application/VND.api+JSON', 'application/json', ' application/vnd.api+json '),
    fc.constantFrom(';version=1', ';version=2', ';version="3"', ';Version=2', ';version=4', ';version='),
    fc.array(fc.constantFrom(';q=0', ';q=1', ';q=0.5', ';q=', ';q=0.5x', ';q=1.5', ' ; q = 0.2 '), {
      maxLength: 2,
    }),
  )
  .map(([type, version, rest]) => type + version + rest.join(''));
const versionedAccept = fc
  .array(versionedRange, { minLength: 1, maxLength: 4 })
  .chain((ranges) => fc.constantFrom(', ', ',', ',,').map((separator) => ranges.join(separator)));

describe('versions named in Accept', () => {
  test.prop([versionedAccept, fc.constantFrom(1, 2, 3)], { numRuns: 2000 })(
    'are acceptable exactly when negotiator accepts a versioned media type of the policy',
    (accept, version) => {
      const policy = versionPolicy({ supported: [version], default: version });
      const decision = negotiateVersion({ accept }, policy);
      const offers = policy.mediaTypes.map((type) => `${type};version=${version}`);
      const model = new Negotiator({ headers: { accept } }).mediaTypes(offers);
      const fromAccept = decision.kind === 'chosen' && decision.source === 'accept';
      expect(fromAccept).toBe(model.length > 0);
    },
  );

  it('never lets a weight that is no number hide or replace another weight of the same version', () => {
    const policy = versionPolicy({ supported: [1, 2], default: 1 });
    for (const accept of [
      `${VERSIONED};version=2, ${VERSIONED};version=2;q=x`,
      `${VERSIONED};version=2;q=x, ${VERSIONED};version=2`,
    ]) {
      expect(negotiateVersion({ accept }, policy)).toMatchObject({
        kind: 'chosen',
        version: 2,
        source: 'accept',
      });
    }
    expect(negotiateVersion({ accept: `${VERSIONED};version=2;q=x` }, policy)).toMatchObject({
      kind: 'chosen',
      version: 1,
      source: 'default',
    });
  });
});
