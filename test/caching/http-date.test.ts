import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHttpDate, parseHttpDate } from '../../src/caching/index.js';

const EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = Date.UTC(2025, 5, 15);

describe('when parsing an HTTP-date (RFC 9110 section 5.6.7)', () => {
  it('accepts the three formats of the RFC example', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(EXAMPLE);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(EXAMPLE);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(EXAMPLE);
    expect(parseHttpDate('Sun Nov 16 08:49:37 1994')).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('reads a two-digit year more than 50 years ahead as the most recent past year', () => {
    expect(parseHttpDate('Sunday, 06-Nov-75 08:49:37 GMT', NOW)).toBe(Date.UTC(2075, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sunday, 06-Nov-76 08:49:37 GMT', NOW)).toBe(Date.UTC(1976, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Sunday, 06-Nov-25 08:49:37 GMT', NOW)).toBe(Date.UTC(2025, 10, 6, 8, 49, 37));
  });

  it('tolerates surrounding whitespace', () => {
    expect(parseHttpDate(' \tSun, 06 Nov 1994 08:49:37 GMT ')).toBe(EXAMPLE);
  });

  it('ignores anything that is not exactly one valid date', () => {
    const invalid = [
      '',
      'yesterday',
      '1994-11-06T08:49:37Z',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      'sun, 06 Nov 1994 08:49:37 GMT',
      'Sun, 06 nov 1994 08:49:37 GMT',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'Sun, 31 Nov 1994 08:49:37 GMT',
      'Sun, 29 Feb 1995 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Nov 1994 08:60:00 GMT',
      'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT',
      'Sun Nov 6 08:49:37 1994',
      'Sunday, 06-Nov-1994 08:49:37 GMT',
      'Sun, 06-Nov-94 08:49:37 GMT',
      'Sun, 00 Nov 1994 08:49:37 GMT',
      new Date(EXAMPLE).toString(),
    ];
    for (const text of invalid) expect(parseHttpDate(text, NOW), text).toBeUndefined();
  });

  it('accepts 29 February in a leap year', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT')).toBe(Date.UTC(2024, 1, 29));
  });

  it('answers a value seen before exactly as the first time, whatever came in between', () => {
    const dates = fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => formatHttpDate(d.getTime())),
      fc.constantFrom('Invalid Date', '', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(dates, fc.double({ noNaN: true })), { maxLength: 12 }), (steps) => {
        const first = new Map<string, number | undefined>();
        for (const [value, formatted] of steps) {
          formatHttpDate(formatted); // touches the formatter's own memo
          const parsed = parseHttpDate(value, 0);
          if (!first.has(value)) first.set(value, parsed);
          expect(parsed).toBe(first.get(value));
        }
      }),
    );
    formatHttpDate(Number.NaN);
    expect(parseHttpDate('Invalid Date')).toBeUndefined();
  });

  it('round-trips any time through formatHttpDate, at one-second precision', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) }), (time) => {
        expect(parseHttpDate(formatHttpDate(time))).toBe(Math.floor(time / 1000) * 1000);
      }),
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseHttpDate(text);
        expect(parsed === undefined || Number.isFinite(parsed)).toBe(true);
      }),
    );
  });
});
