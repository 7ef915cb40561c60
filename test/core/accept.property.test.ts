import { fc, test } from '@fast-check/vitest';
import Negotiator from 'negotiator';
import { describe, expect, it } from 'vitest';
import { parseAccept, preferredMediaType } from '../../src/http/accept.js';

const OFFERS = [
  ['application/vnd.api+json', 'application/json'],
  ['application/problem+json', 'application/vnd.api+json', 'application/json'],
  ['text/csv', 'application/json'],
] as const;

// Accept values near the grammar: ranges, wildcards, odd case, weights well- and ill-formed,
// parameters quoted and not, stray separators and spaces.
const range = fc.constantFrom(
  'application/json',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/*',
  '*/*',
  'text/csv',
  'text/*',
  '*',
  'json',
  '',
  ' application/json ',
  '*/json',
);
const param = fc.oneof(
  fc.constantFrom(';q=0', ';q=1', ';q=0.5', ';q=0.001', ';Q=0.7', ';q=', ';q=x', ';q=0.5x', ';q=2', ';q=-1'),
  fc.constantFrom(
    ';q="0.3"',
    ';level=1',
    ';level=*',
    ';level=',
    ';x="a,b"',
    ';x="unterminated',
    ';q',
    ';=1',
    ' ; q = 0.2 ',
    ';q=0.4;q=0.9',
  ),
);
const element = fc.tuple(range, fc.array(param, { maxLength: 3 })).map(([r, ps]) => r + ps.join(''));
const accept = fc
  .array(element, { minLength: 1, maxLength: 5 })
  .chain((elements) => fc.constantFrom(', ', ',', ' ,', ',,').map((separator) => elements.join(separator)));

describe('Accept negotiation without negotiator', () => {
  test.prop([accept, fc.constantFrom(...OFFERS)], { numRuns: 3000 })(
    'prefers the offer jshttp negotiator prefers',
    (header, offers) => {
      const model = new Negotiator({ headers: { accept: header } }).mediaType(offers.slice());
      expect(preferredMediaType(header, offers)).toBe(model);
    },
  );

  test.prop([accept], { numRuns: 1000 })(
    'names the ranges with a weight above 0 that negotiator names, lower-cased',
    (header) => {
      const named = parseAccept(header)
        .filter((r) => r.q > 0)
        .map((r) => `${r.type}/${r.subtype}`);
      // Negotiator returns the names as written; the parser lower-cases them (both compare without case).
      const model = new Negotiator({ headers: { accept: header } }).mediaTypes().map((t) => t.toLowerCase());
      expect(named.sort()).toEqual(model.sort());
    },
  );

  it('weighs, then prefers the specific range, then the server order', () => {
    expect(preferredMediaType('application/json;q=0.5, */*;q=0.9', ['application/json', 'text/csv'])).toBe(
      'text/csv',
    );
    expect(preferredMediaType('*/*;q=0.5, application/json;q=0', ['application/json', 'text/csv'])).toBe(
      'text/csv',
    );
    expect(preferredMediaType('text/html', ['application/json'])).toBeUndefined();
  });
});
