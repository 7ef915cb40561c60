import { isIP } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ipFamily } from '../../src/ratelimit/ip-syntax.js';

// Text near the address grammar: valid addresses, and pieces of them glued in any order, so that
// misplaced `::`, dotted quads in the wrong group, too many groups and leading zeros all occur.
const piece = fc.oneof(
  fc.constantFrom(
    ':',
    '::',
    '.',
    '0',
    '00',
    '1',
    '255',
    '256',
    '01',
    'ffff',
    'FFFF',
    '12345',
    'g',
    '1.2.3.4',
  ),
  fc.stringMatching(/^[0-9a-fA-F]{1,5}$/),
  fc.integer({ min: 0, max: 300 }).map(String),
);
const nearAddress = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.array(piece, { maxLength: 18 }).map((pieces) => pieces.join('')),
  fc
    .tuple(fc.oneof(fc.ipV6(), fc.ipV4()), piece, fc.nat(40))
    .map(([text, extra, at]) => text.slice(0, at) + extra + text.slice(at)),
);

describe('IP address syntax without node:net', () => {
  test.prop([nearAddress], { numRuns: 3000 })('answers what net.isIP answers', (text) => {
    expect(ipFamily(text)).toBe(isIP(text));
  });

  it.each([
    ['1:2:3:4:5:6:7::', 6],
    ['::1:2:3:4:5:6:7', 6],
    ['1:2:3:4:5:6:7:8::', 0],
    ['::1.2.3.4', 6],
    ['1::2::3', 0],
    ['1.2.3.4::', 0],
    ['01.2.3.4', 0],
    ['1:2:3:4:5:6:1.2.3.4', 6],
    ['1:2:3:4:5:6:7:1.2.3.4', 0],
  ] as const)('reads %s as family %i', (text, family) => {
    expect(ipFamily(text)).toBe(family);
    expect(isIP(text)).toBe(family);
  });
});
