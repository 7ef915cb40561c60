import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimOws } from '../../src/core/field-syntax.js';

describe('trimOws', () => {
  it('strips spaces and tabs at both ends and nothing else, like the plain definition', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(' ', '\t', 'a', '"', ',', '\n') }), (value) => {
        let start = 0;
        let end = value.length;
        while (start < end && (value[start] === ' ' || value[start] === '\t')) start++;
        while (end > start && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
        expect(trimOws(value)).toBe(value.slice(start, end));
      }),
    );
  });

  it('keeps whitespace inside a value, however long the run', () => {
    const inner = ' \t'.repeat(20_000);
    expect(trimOws(`  x${inner}y\t`)).toBe(`x${inner}y`);
  });
});
