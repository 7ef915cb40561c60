import { fc, test } from '@fast-check/vitest';
import { serializeItem, Token } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_HEADER, MAX_KEY_LENGTH, parseIdempotencyKey } from '../../src/idempotency/index.js';
import { invalidKeyDetail } from '../../src/idempotency/key.js';

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: MAX_KEY_LENGTH,
});

describe('when the header is absent', () => {
  it('reports it absent', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ kind: 'absent' });
  });
});

describe('when the key is a structured-field string', () => {
  it('unescapes quotes and backslashes', () => {
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toEqual({ kind: 'valid', key: 'a"b\\c' });
  });

  it('ignores surrounding whitespace and parameters', () => {
    expect(parseIdempotencyKey(' "abc";v=1;x ')).toEqual({ kind: 'valid', key: 'abc' });
  });

  it('refuses an unknown escape and text after the string', () => {
    expect(parseIdempotencyKey('"a\\nb"')).toEqual({ kind: 'invalid', reason: 'malformed' });
    expect(parseIdempotencyKey('"abc" def')).toEqual({ kind: 'invalid', reason: 'malformed' });
  });

  test.prop([printable])('reads back any key a structured-fields serializer writes', (key) => {
    expect(parseIdempotencyKey(serializeItem(key))).toEqual({ kind: 'valid', key });
  });

  test.prop([printable, fc.string({ unit: fc.constantFrom('a', 'b', '1', '-'), maxLength: 5 })])(
    'reads the same key whatever parameters follow',
    (key, value) => {
      const withParams = serializeItem(key, new Map([['v', new Token(`t${value}`)]]));
      expect(parseIdempotencyKey(withParams)).toEqual({ kind: 'valid', key });
    },
  );

  test.prop([printable, printable])('refuses two comma-joined values (repeated field lines)', (a, b) => {
    expect(parseIdempotencyKey(`${serializeItem(a)}, ${serializeItem(b)}`)).toEqual({
      kind: 'invalid',
      reason: 'several-values',
    });
  });
});

describe('when the key is bare (as Stripe clients send it)', () => {
  const bare = printable
    .map((key) => key.trim())
    .filter((key) => key.length > 0 && !key.startsWith('"') && !key.includes(','));

  test.prop([bare])('names the same key as its quoted form', (key) => {
    expect(parseIdempotencyKey(key)).toEqual(parseIdempotencyKey(serializeItem(key)));
    expect(parseIdempotencyKey(key)).toEqual({ kind: 'valid', key });
  });

  it('refuses a comma: it cannot be told from two joined field lines', () => {
    expect(parseIdempotencyKey('a,b')).toEqual({ kind: 'invalid', reason: 'several-values' });
  });
});

describe('when the key breaks the limits', () => {
  it('refuses an empty key in either form', () => {
    expect(parseIdempotencyKey('')).toEqual({ kind: 'invalid', reason: 'empty' });
    expect(parseIdempotencyKey('  ')).toEqual({ kind: 'invalid', reason: 'empty' });
    expect(parseIdempotencyKey('""')).toEqual({ kind: 'invalid', reason: 'empty' });
  });

  test.prop([fc.integer({ min: MAX_KEY_LENGTH + 1, max: 2_000 })])(
    'refuses more than 255 characters',
    (length) => {
      const key = 'x'.repeat(length);
      expect(parseIdempotencyKey(key)).toEqual({ kind: 'invalid', reason: 'too-long' });
      expect(parseIdempotencyKey(`"${key}"`)).toEqual({ kind: 'invalid', reason: 'too-long' });
    },
  );

  const outside = fc
    .oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0xffff }))
    .map((c) => String.fromCharCode(c));

  test.prop([fc.string({ maxLength: 20 }), outside, fc.string({ maxLength: 20 })])(
    'refuses any character outside printable ASCII, quoted or bare',
    (before, bad, after) => {
      const key = `a${before.replace(/[^\x20-\x7e]|[",\\]/g, '')}${bad}${after.replace(/[^\x20-\x7e]|[",\\]/g, '')}b`;
      expect(parseIdempotencyKey(key)).toEqual({ kind: 'invalid', reason: 'invalid-character' });
      expect(parseIdempotencyKey(`"${key}"`)).toEqual({ kind: 'invalid', reason: 'invalid-character' });
    },
  );
});

describe('the edges of a key', () => {
  it.each([
    ['a'.repeat(255), { kind: 'valid', key: 'a'.repeat(255) }],
    [`"${'a'.repeat(255)}"`, { kind: 'valid', key: 'a'.repeat(255) }],
    ['a'.repeat(256), { kind: 'invalid', reason: 'too-long' }],
    [`"${'a'.repeat(256)}"`, { kind: 'invalid', reason: 'too-long' }],
    ['"a" , "b"', { kind: 'invalid', reason: 'several-values' }],
    ['"a", "b"', { kind: 'invalid', reason: 'several-values' }],
    ['"a, b', { kind: 'invalid', reason: 'several-values' }],
    ['"a', { kind: 'invalid', reason: 'malformed' }],
    ['"a"b', { kind: 'invalid', reason: 'malformed' }],
    ['"é"', { kind: 'invalid', reason: 'invalid-character' }],
    ['"a";v=12', { kind: 'valid', key: 'a' }],
    ['"a";v=1.25', { kind: 'valid', key: 'a' }],
    ['"a";v=1.2345', { kind: 'invalid', reason: 'malformed' }],
    ['"a"; v=1', { kind: 'valid', key: 'a' }],
    ['"a";abc_1=?1', { kind: 'valid', key: 'a' }],
    ['"a";v="x";w=tok;z=:AQ==:', { kind: 'valid', key: 'a' }],
    ['"a";V=1', { kind: 'invalid', reason: 'malformed' }],
    ['"a\\"b"', { kind: 'valid', key: 'a"b' }],
    ['"a\\\\b"', { kind: 'valid', key: 'a\\b' }],
  ])('%s reads as %j', (field, expected) => {
    expect(parseIdempotencyKey(field)).toEqual(expected);
  });

  it('is the Idempotency-Key field, and each refusal explains itself', () => {
    expect(IDEMPOTENCY_KEY_HEADER).toBe('Idempotency-Key');
    expect(invalidKeyDetail('empty')).toBe('Idempotency-Key must not be empty.');
    expect(invalidKeyDetail('too-long')).toBe('Idempotency-Key must be at most 255 characters.');
    expect(invalidKeyDetail('invalid-character')).toBe(
      'Idempotency-Key must contain printable ASCII characters only.',
    );
    expect(invalidKeyDetail('several-values')).toBe(
      'Idempotency-Key must carry exactly one key (several values or field lines were sent, or a bare key contains a comma).',
    );
    expect(invalidKeyDetail('malformed')).toBe(
      'Idempotency-Key must be a quoted structured-field string or a bare key.',
    );
  });
});
