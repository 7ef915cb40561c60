import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimOws } from '../../src/http/field-syntax.js';

/**
 * RFC 9110 section 5.6.3: `OWS = *( SP / HTAB )`. A field value is `OWS value OWS`, where the value
 * neither starts nor ends with SP or HTAB (section 5.5). The model reads that grammar as a regular
 * expression, the value being the shortest middle that leaves the rest to OWS.
 */
const OWS_VALUE_OWS = /^[ \t]*([\s\S]*?)[ \t]*$/;
const model = (value: string): string => OWS_VALUE_OWS.exec(value)![1]!;

const unit = fc.constantFrom(' ', '\t', 'a', '"', ',', '\n', '\r', '\u00a0', '\v');
const ows = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 6 });

describe('trimOws', () => {
  it('keeps the value between the two OWS of the RFC 9110 grammar (regular-expression model)', () => {
    fc.assert(
      fc.property(fc.string({ unit }), (value) => {
        expect(trimOws(value)).toBe(model(value));
      }),
    );
  });

  it('gives back the value a field was built from, whatever OWS surrounds it', () => {
    // Built, not parsed: a value that does not begin or end with SP/HTAB, wrapped in OWS.
    const core = fc.string({ unit }).filter((v) => !/^[ \t]/.test(v) && !/[ \t]$/.test(v));
    fc.assert(
      fc.property(ows, core, ows, (before, value, after) => {
        expect(trimOws(before + value + after)).toBe(value);
      }),
    );
  });

  it('strips only SP and HTAB: other whitespace (CR, LF, VT, NBSP) is part of the value', () => {
    expect(trimOws(' \t\n x \r\t ')).toBe('\n x \r');
    expect(trimOws('\u00a0x\v')).toBe('\u00a0x\v');
  });

  it('keeps whitespace inside a value, however long the run', () => {
    const inner = ' \t'.repeat(20_000);
    expect(trimOws(`  x${inner}y\t`)).toBe(`x${inner}y`);
  });
});
