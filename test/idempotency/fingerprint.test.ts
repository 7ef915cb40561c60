import { createHash } from 'node:crypto';
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
  // The text docs/idempotency.md describes, hashed with a `Hash` object: the fingerprint as the
  // documentation states it, computed apart from the code under test.
  const documented = (lines: string[], body: string | Uint8Array) =>
    createHash('sha256')
      .update(`${lines.join('\n')}\n`)
      .update(body)
      .digest('hex');

  // Records in Redis and PostgreSQL outlive a deploy: a retry sent across one must meet the same
  // fingerprint, so these values do not change by accident.
  it.each([
    [
      'POST',
      '/orders',
      '',
      'application/vnd.api+json',
      '{"data":{"type":"orders","attributes":{"quantity":1,"bookId":7}}}',
      '4746fb4fd511276cf55eabf7679e3736ded5b30fa42626614c1af72ef29e0d9c',
      documented(
        ['POST', '/orders', '', 'application/vnd.api+json', 'json'],
        '{"data":{"attributes":{"bookId":7,"quantity":1},"type":"orders"}}',
      ),
    ],
    [
      'PATCH',
      '/orders/1',
      'a=1',
      'text/plain',
      'hello',
      '24caf53b756cdfdd2745cdbfb93d65cc176ec3fe9de4b8c1ef6c54d3976dc781',
      documented(['PATCH', '/orders/1', 'a=1', 'text/plain', 'bytes'], 'hello'),
    ],
    [
      'POST',
      '/orders',
      '',
      undefined,
      '',
      'b425d793889adc05fffbc9aa1f655d059f487b47c29fc7e01e7cf37fe008e991',
      documented(['POST', '/orders', '', '', 'empty'], ''),
    ],
  ])(
    '%s %s?%s (%s) is the documented text hashed, as pinned',
    (method, path, search, contentType, body, pinned, expected) => {
      const actual = requestFingerprint({ method, path, search, contentType, body: Buffer.from(body) });
      expect(actual).toBe(expected);
      expect(actual).toBe(pinned);
    },
  );

  test.prop([fc.json(), fc.constantFrom('application/json', 'application/vnd.api+json; charset=utf-8')], {
    seed: 4207,
  })('a JSON body is its canonical text hashed with the fields', (text, contentType) => {
    const expected = documented(
      ['PUT', '/a', 'q=1', contentType.split(';')[0]!, 'json'],
      canonicalJson(JSON.parse(text)),
    );
    expect(fingerprint(text, { method: 'PUT', path: '/a', search: 'q=1', contentType })).toBe(expected);
  });

  test.prop([fc.uint8Array({ minLength: 1, maxLength: 64 })], { seed: 4208 })(
    'any other body is its bytes hashed with the fields',
    (bytes) => {
      const expected = documented(['POST', '/orders', '', 'application/octet-stream', 'bytes'], bytes);
      expect(fingerprint(bytes, { contentType: 'application/octet-stream' })).toBe(expected);
    },
  );

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
