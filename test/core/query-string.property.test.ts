import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RequestContext } from '../../src/core/context.js';
import { parseQuery } from '../../src/core/query-string.js';
import { requestView } from '../support/request.js';
import { recordingLogger } from './send.js';

/** The standard parser, as the reference: last value wins, and which names repeat. */
function standard(search: string) {
  const last: Record<string, string> = {};
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [name, value] of new URLSearchParams(search)) {
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
    last[name] = value;
  }
  return { last, repeated: [...repeated].sort() };
}

const parsed = (search: string) => {
  const { last, repeated } = parseQuery(search);
  return { last: { ...last }, repeated: [...(repeated ?? [])].sort() };
};

// Query-ish text: the separators and escapes that matter, plus any code unit at all.
const queryText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '&',
        '=',
        '+',
        '%',
        '%2',
        '%20',
        '%2B',
        '%26',
        '%3D',
        '%E2%80%99',
        '%C3',
        '%FF',
        'a',
        'é',
      ),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.string({
        unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
        maxLength: 1,
      }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

// Sometimes with the stray leading '?' of `/books??a=1`, which URLSearchParams drops.
const searchText = fc
  .tuple(fc.boolean(), queryText)
  .map(([question, text]) => (question ? `?${text}` : text));

describe('parseQuery', () => {
  it('decodes names and values, + as a space, and keeps the last of repeated names', () => {
    expect(parsed('author=Italo%20Calvino&q=a+b&q=c&flag&=x&%E2%80%99=%2B')).toEqual({
      last: { author: 'Italo Calvino', q: 'c', flag: '', '': 'x', '\u2019': '+' },
      repeated: ['q'],
    });
  });

  it('leaves a malformed escape as it is, like the standard parser', () => {
    expect(parsed('a=%zz&b=%E2%80').last).toEqual({ a: '%zz', b: '\ufffd' });
  });

  it('gives names like __proto__ no special meaning', () => {
    const { last } = parseQuery('__proto__=1&constructor=2');
    expect('toString' in last).toBe(false);
    expect('hasOwnProperty' in last).toBe(false);
    expect(Object.entries(last)).toEqual([
      ['__proto__', '1'],
      ['constructor', '2'],
    ]);
  });

  it('drops one leading ?, like URLSearchParams', () => {
    expect(parsed('?a=1&a=2')).toEqual({ last: { a: '2' }, repeated: ['a'] });
    expect(parsed('??a=1').last).toEqual({ '?a': '1' });
    expect(parsed('??a=%zz').last).toEqual({ '?a': '%zz' });
  });

  test.prop([searchText], { numRuns: 2000 })('equals URLSearchParams for any query string', (search) => {
    expect(parsed(search)).toEqual(standard(search));
  });

  test.prop([searchText], { numRuns: 500 })('gives every value of a name through ctx.queryAll', (search) => {
    const ctx = new RequestContext(requestView('GET', `/books?${search}`), 'req-1', recordingLogger());
    const params = new URLSearchParams(ctx.request.search);
    for (const name of new Set(params.keys())) expect(ctx.queryAll(name)).toEqual(params.getAll(name));
    expect(ctx.queryAll('\u0000absent')).toEqual([]);
  });
});
