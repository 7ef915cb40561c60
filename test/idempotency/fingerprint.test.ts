import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from '../../src/idempotency/fingerprint.js';

const JSON_TYPE = 'application/json';

function fingerprint(
  body: string | Uint8Array,
  overrides: { method?: string; path?: string; search?: string; contentType?: string } = {},
) {
  return requestFingerprint({
    method: overrides.method ?? 'POST',
    path: overrides.path ?? '/orders',
    search: overrides.search ?? '',
    contentType: 'contentType' in overrides ? overrides.contentType : JSON_TYPE,
    body: typeof body === 'string' ? Buffer.from(body) : body,
  });
}

/** The same JSON value with members shuffled and random whitespace between tokens. */
function reformat(value: unknown, seed: number): string {
  const space = [' ', '\n', '\t', '  ', ''][seed % 5]!;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${space}${value.map((v, i) => reformat(v, seed + i)).join(`,${space}`)}${space}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (seed % 2 === 1) entries.reverse();
  return `{${space}${entries.map(([k, v], i) => `${JSON.stringify(k)}${space}:${space}${reformat(v, seed + i)}`).join(`,${space}`)}${space}}`;
}

const jsonValue = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('when the body is JSON', () => {
  test.prop([jsonValue, fc.nat()])('ignores key order and whitespace', (value, seed) => {
    expect(fingerprint(reformat(value, seed))).toBe(fingerprint(JSON.stringify(value)));
  });

  test.prop([jsonValue, jsonValue])('tells different values apart', (a, b) => {
    fc.pre(canonicalJson(a) !== canonicalJson(b));
    expect(fingerprint(JSON.stringify(a))).not.toBe(fingerprint(JSON.stringify(b)));
  });

  it('writes members sorted, without whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: 1.5 }] })).toBe(
      '{"a":[true,null,{"c":1.5,"d":"x"}],"b":1}',
    );
  });

  it('recognizes +json media types', () => {
    const a = fingerprint('{"a":1,"b":2}', { contentType: 'application/vnd.api+json; charset=utf-8' });
    const b = fingerprint('{"b":2, "a":1}', { contentType: 'application/vnd.api+json' });
    expect(a).toBe(b);
  });
});

describe('when the body is not JSON', () => {
  it('compares bytes, so whitespace matters', () => {
    expect(fingerprint('{"a":1}', { contentType: 'text/plain' })).not.toBe(
      fingerprint('{ "a":1}', { contentType: 'text/plain' }),
    );
  });

  test.prop([fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 })])(
    'is equal exactly when the bytes are',
    (a, b) => {
      const same = Buffer.from(a).equals(Buffer.from(b));
      expect(
        fingerprint(a, { contentType: 'application/octet-stream' }) ===
          fingerprint(b, { contentType: 'application/octet-stream' }),
      ).toBe(same);
    },
  );

  it('hashes malformed JSON as bytes', () => {
    expect(fingerprint('{"a":')).toBe(fingerprint('{"a":'));
    expect(fingerprint('{"a":')).not.toBe(fingerprint('{"a": '));
  });

  it('hashes a body with a byte order mark as bytes, as the body decoder refuses it', () => {
    // RFC 8259 section 8.1: JSON text must not start with one; the decoder answers 400.
    expect(fingerprint('\ufeff{"a":1}')).not.toBe(fingerprint('{"a":1}'));
    expect(fingerprint('\ufeff{"a":1}')).not.toBe(fingerprint('\ufeff{ "a":1}'));
  });
});

describe('the stored fingerprints', () => {
  // Records in Redis and PostgreSQL outlive a deploy: a retry sent across one must meet the same
  // fingerprint, so these values never change.
  it.each([
    [
      'POST',
      '/orders',
      '',
      'application/vnd.api+json',
      '{"data":{"type":"orders","attributes":{"quantity":1,"bookId":7}}}',
      'd011c649dac1d198ee920cc6dd945475f23a41f4c4734f834cf7cb79e5233b2f',
    ],
    [
      'PATCH',
      '/orders/1',
      'a=1',
      'text/plain',
      'hello',
      'ea3684aaeb648eb797a87638ab372a71cf9dcc2f7d6d4eb37f379873811be765',
    ],
    [
      'POST',
      '/orders',
      '',
      undefined,
      '',
      '3542f1fb5b95a8c65d75128e063e0be612a337337a92a79ef3c866193f106d2a',
    ],
  ])('%s %s?%s (%s) is what it always was', (method, path, search, contentType, body, expected) => {
    expect(requestFingerprint({ method, path, search, contentType, body: Buffer.from(body) })).toBe(expected);
  });

  // The canonical form as first written (members sorted, undefined members left out), kept as the
  // reference the faster one is held to.
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((name) => record[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${reference(record[name])}`);
    return `{${members.join(',')}}`;
  };
  it.each([
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1e21,
    5e-324,
    'a"b',
    'a\\b',
    '\u2028',
    '\u0000',
    'é',
    '\ud800',
    { 'k"': 1, é: [Number.NaN, undefined, 'x'] },
  ])('canonicalJson writes %j as the reference does', (value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  const strings = fc.string({ unit: 'binary' });
  const values = fc.oneof(
    jsonValue,
    fc.anything(),
    fc.double(),
    strings,
    fc.dictionary(strings, fc.oneof(strings, fc.double(), fc.constant(undefined))),
  );
  test.prop([values])('canonicalJson writes what the reference writes', (value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });
});

describe('when method, path or query differ', () => {
  it('gives another fingerprint', () => {
    const base = fingerprint('{}');
    expect(fingerprint('{}', { method: 'PATCH' })).not.toBe(base);
    expect(fingerprint('{}', { path: '/orders/1' })).not.toBe(base);
    expect(fingerprint('{}', { search: 'a=1' })).not.toBe(base);
  });
});
