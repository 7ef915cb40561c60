import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxErrorAt } from '../../src/validation/json-syntax.js';
import { jsonTextOf, malformedJsonError } from '../../src/validation/json-text.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// JSON texts, with spaces where the grammar allows them and escapes and exponents in places.
const jsonText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value, null, 2)),
  fc.constantFrom('"\\u00e9\\n\\/"', '-0.5e+10', '1E-3', '[ ]', '{ }', ' \t\r\n0 '),
);
// Near-JSON: pieces of the grammar glued in any order.
const piece = fc.constantFrom(
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '\\u12',
  'a',
  '-',
  '0',
  '01',
  '.',
  'e',
  '+',
  ' ',
  'tru',
  'null',
  '"k"',
  '\u0001',
);
const nearJson = fc.oneof(
  jsonText,
  fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc
    .tuple(jsonText, piece, fc.nat(60))
    .map(([text, extra, at]) => text.slice(0, at) + extra + text.slice(at)),
  fc.tuple(jsonText, fc.nat(60)).map(([text, at]) => text.slice(0, at)),
);

describe('where a text stops being JSON', () => {
  test.prop([nearJson], { numRuns: 2000 })(
    'finds no error exactly when JSON.parse accepts the text',
    (text) => {
      const at = jsonSyntaxErrorAt(text);
      expect(at === -1).toBe(parses(text));
      expect(at).toBeLessThanOrEqual(text.length);
    },
  );

  // A JSON text cut anywhere is a prefix some JSON text starts with; U+0001 belongs nowhere in JSON.
  test.prop([jsonText, fc.nat(80)])(
    'places the error right after the longest prefix that could go on',
    (text, cut) => {
      const at = Math.min(cut, text.length);
      expect(jsonSyntaxErrorAt(`${text.slice(0, at)}\u0001`)).toBe(at);
      const prefix = text.slice(0, at);
      expect(jsonSyntaxErrorAt(prefix)).toBe(parses(prefix) ? -1 : at);
    },
  );

  it.each([
    ['{', 1],
    ['{"a":tru}', 8],
    ['[1,]', 3],
    ['01', 1],
    ['"\\x"', 2],
    ['1.', 2],
    ['{"a" 1}', 5],
  ])('%j stops at %i', (text, at) => {
    expect(jsonSyntaxErrorAt(text)).toBe(at);
  });

  it('takes nesting far deeper than a stack', () => {
    expect(jsonSyntaxErrorAt('['.repeat(200_000) + ']'.repeat(200_000))).toBe(-1);
    expect(jsonSyntaxErrorAt('['.repeat(200_000))).toBe(200_000);
  });

  it('words the 400 the same on every engine, naming the position and what is there', () => {
    const text = jsonTextOf('{"a":tru}');
    if (text.ok) throw new Error('parsed');
    expect(malformedJsonError(text).errors[0]?.detail).toBe(
      'The body is not valid JSON: unexpected character "}" at position 8 (RFC 8259 section 2).',
    );
    const cut = jsonTextOf('{"a":');
    if (cut.ok) throw new Error('parsed');
    expect(malformedJsonError(cut).errors[0]?.detail).toBe(
      'The body is not valid JSON: unexpected end of text at position 5 (RFC 8259 section 2).',
    );
  });
});
