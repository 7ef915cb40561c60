import fc from 'fast-check';

/**
 * fast-check arbitraries for the inputs of the conventions: validators (RFC 9110 section 8.8),
 * HTTP dates (section 5.6.7), `Accept` with versions and weights (section 12.5.1), idempotency keys,
 * JSON:API documents, and hostile bodies, queries and headers.
 */

const ETAGC = fc.constantFrom(...'abcdefABCDEF0123456789-_.:~!#$%&()*+/<=>?@[]^`{|}'.split(''));

/** An entity tag as sent: `"x"` or `W/"x"`. */
export function entityTag(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.boolean(), fc.string({ unit: ETAGC, maxLength: 24 }))
    .map(([weak, opaque]) => `${weak ? 'W/' : ''}"${opaque}"`);
}

/** An `If-Match` / `If-None-Match` value: `*` or a list of tags with optional white space. */
export function entityTagList(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('*') },
    {
      weight: 5,
      arbitrary: fc
        .array(fc.tuple(entityTag(), fc.constantFrom(',', ', ', ' ,', ',\t')), { minLength: 1, maxLength: 4 })
        .map((tags) => tags.map(([tag], i) => (i === 0 ? tag : `${tags[i - 1]![1]}${tag}`)).join('')),
    },
  );
}

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) between 1970 and 2100. */
export function httpDate(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date(0), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true })
    .map((date) => new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString());
}

/** A date field that is not an HTTP date (RFC 9110 section 5.6.7: a recipient ignores it). */
export function invalidHttpDate(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('yesterday', '0', '', 'Sun, 32 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 25:49:37 GMT'),
    fc.string({ maxLength: 40 }),
  );
}

export interface AcceptOptions {
  /** Media types to draw from (default JSON:API, JSON, problem+json, `*\/*`, text/html). */
  readonly mediaTypes?: readonly string[];
  /** Versions to ask for with `;version=n` (default 1 to 3, and some unknown). */
  readonly versions?: readonly string[];
}

/** An `Accept` value: one to four media ranges, some with `version=`, some with `q=`. */
export function acceptHeader(options: AcceptOptions = {}): fc.Arbitrary<string> {
  const types = options.mediaTypes ?? [
    'application/vnd.api+json',
    'application/json',
    'application/problem+json',
    '*/*',
    'application/*',
    'text/html',
  ];
  const versions = options.versions ?? ['1', '2', '3', '99'];
  const range = fc
    .tuple(
      fc.constantFrom(...types),
      fc.option(fc.constantFrom(...versions), { nil: undefined }),
      fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
    )
    .map(([type, version, q]) => {
      let text = type;
      if (version !== undefined) text += `;version=${version}`;
      if (q !== undefined)
        text += `;q=${q === 1000 ? '1' : (q / 1000).toFixed(3).replace(/0+$/, '').replace(/\.$/, '.0')}`;
      return text;
    });
  return fc.array(range, { minLength: 1, maxLength: 4 }).map((ranges) => ranges.join(', '));
}

/** A valid `Idempotency-Key`: 1 to 64 printable characters, bare or as a structured-field string. */
export function idempotencyKey(): fc.Arbitrary<string> {
  return fc.tuple(fc.uuid(), fc.boolean()).map(([uuid, quoted]) => (quoted ? `"${uuid}"` : uuid));
}

/** A JSON:API resource document for `type`, with the given attributes. */
export function jsonApiDocument<A>(
  type: string,
  attributes: fc.Arbitrary<A>,
): fc.Arbitrary<{ data: { type: string; attributes: A } }> {
  return attributes.map((value) => ({ data: { type, attributes: value } }));
}

/** Bodies built to hurt a parser: deep nesting, huge numbers, prototype keys, truncation, bad bytes. */
export function hostileBody(): fc.Arbitrary<Uint8Array> {
  const text = fc.oneof(
    fc.integer({ min: 100, max: 5000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    fc.integer({ min: 100, max: 5000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
    fc.constantFrom(
      '{"quantity": 1e308}',
      '{"quantity": 123456789012345678901234567890}',
      '{"quantity": -0}',
      '{"__proto__": {"admin": true}, "bookId": 1, "quantity": 1}',
      '{"constructor": {"prototype": {"admin": true}}}',
      '{"bookId": 1, "bookId": 2, "quantity": 1}',
      '{"bookId": 1, "quantity"',
      '{"data": {"type": "orders", "attributes": {"bookId": 1',
      'null',
      '[]',
      '"string"',
      '',
      '\u0000',
      '{"a":"\\ud800"}',
    ),
    fc.json({ maxDepth: 4 }),
    fc.string({ maxLength: 200 }),
  );
  return fc.oneof(
    { weight: 4, arbitrary: text.map((t) => new TextEncoder().encode(t)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constant(Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
    },
  );
}

/** Query strings built to confuse a parser: repeats, bad escapes, brackets, huge or empty values. */
export function hostileQuery(): fc.Arbitrary<string> {
  const part = fc.oneof(
    fc.constantFrom(
      'page[size]=-1',
      'page[size]=1e9',
      'page[size]=abc',
      'page[number]=0',
      'page[after]=%ZZ',
      'sort=__proto__',
      'filter[status]=',
      'fields[standards]=,,,',
      'author=%00',
      '%E0%A4%A=1',
      'a=1&a=2',
      'include=../../etc',
      '__proto__[admin]=1',
    ),
    fc
      .tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }))
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
  );
  return fc.array(part, { maxLength: 5 }).map((parts) => parts.join('&'));
}

/** Paths built to escape routing: dot segments, NULs, overlong and non-ASCII segments, bad escapes. */
export function hostilePath(prefixes: readonly string[] = ['/']): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%00',
      '%ZZ',
      '%',
      '~',
      'é',
      '%C3%A9',
      'books',
      'orders',
      '1',
      '0',
      '-1',
      '99999999999999999999',
    ),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
    fc.integer({ min: 300, max: 3000 }).map((n) => 'a'.repeat(n)),
  );
  return fc
    .tuple(fc.constantFrom(...prefixes), fc.array(segment, { maxLength: 4 }), fc.boolean())
    .map(([prefix, segments, slash]) => {
      const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
      return `${base}/${segments.join('/')}${slash ? '/' : ''}`;
    });
}

/** Header sets built to be misread: duplicated credentials, odd validators, absurd lengths. */
export function hostileHeaders(): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      'if-match': fc.oneof(entityTagList(), fc.constantFrom('*, "1"', '"unterminated', 'W/', '')),
      'if-none-match': fc.oneof(entityTagList(), fc.constantFrom('"a" "b"', 'garbage')),
      'if-modified-since': fc.oneof(httpDate(), invalidHttpDate()),
      accept: fc.oneof(
        acceptHeader(),
        fc.constantFrom('', '*/*;q=0', 'application/vnd.api+json;version=', ';;;'),
      ),
      'content-type': fc.constantFrom(
        'application/json',
        'application/vnd.api+json',
        'application/json; charset=latin1',
        'text/plain',
        'application/vnd.api+json; ext=foo',
        '',
      ),
      'idempotency-key': fc.oneof(idempotencyKey(), fc.constantFrom('', 'a, b', '"', 'x'.repeat(300))),
      authorization: fc.constantFrom('Bearer a.b.c', 'Basic Zm9vOmJhcg==', 'Bearer', 'bearer  x'),
    },
    { requiredKeys: [] },
  );
}
