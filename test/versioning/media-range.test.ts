import { describe, expect, it } from 'vitest';
import { parseAccept } from '../../src/versioning/media-range.js';

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

  describe('when an element is malformed', () => {
    it.each([
      ['no slash', 'json'],
      ['a weight above 1', 'application/json;q=1.5'],
      ['a weight with four decimals', 'application/json;q=0.1234'],
      ['a parameter without a value', 'application/json;version'],
      ['an unterminated quoted string', 'application/json;version="2'],
      ['a wildcard type with a concrete subtype', '*/json'],
    ])('skips it (%s) and keeps the others', (_, element) => {
      expect(simplified(`text/html, ${element}`)).toEqual([{ type: 'text/html', params: {}, q: 1 }]);
    });

    it('accepts empty parameters (";;") as the grammar allows', () => {
      expect(simplified('application/json;;version=2')).toEqual([
        { type: 'application/json', params: { version: '2' }, q: 1 },
      ]);
    });
  });
});
