import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { scopeKey } from '../../src/idempotency/decision.js';
import {
  DEFAULT_REPLAY_HEADERS,
  replayOf,
  shouldStore,
  toStoredResponse,
} from '../../src/idempotency/index.js';

// The plain-value core of `idempotency`: which answers are kept, what is kept of them, and the replay.
describe('the idempotency decision core', () => {
  test.prop([fc.integer({ min: 100, max: 599 }), fc.boolean()])(
    'stores 1xx-3xx always, 4xx but 401 and 429 when asked, never 5xx',
    (status, storeClientErrors) => {
      const expected =
        status < 400 ? true : status >= 500 || status === 401 || status === 429 ? false : storeClientErrors;
      expect(shouldStore(status, storeClientErrors)).toBe(expected);
    },
  );

  // Response headers are lower-case in an ApiResponse.
  const headerName = fc.constantFrom(...DEFAULT_REPLAY_HEADERS, 'set-cookie', 'date', 'x-request-id');
  test.prop([
    fc.integer({ min: 200, max: 499 }),
    fc.dictionary(headerName, fc.string({ maxLength: 20 }), { maxKeys: 6 }),
    fc.uint8Array({ maxLength: 64 }),
  ])(
    'replays the status, the allow-listed headers and the bytes, marked as a replay',
    (status, headers, body) => {
      const allowed = new Set(DEFAULT_REPLAY_HEADERS);
      const replay = replayOf(toStoredResponse({ status, headers }, body, allowed));
      expect(replay.status).toBe(status);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      for (const [name, value] of Object.entries(headers)) {
        const lower = name.toLowerCase();
        if (allowed.has(lower)) expect(Object.values(replay.headers)).toContain(value);
        else expect(replay.headers[lower]).toBeUndefined();
      }
      expect(
        Object.keys(replay.headers)
          .filter((n) => n !== 'idempotent-replayed')
          .every((n) => allowed.has(n)),
      ).toBe(true);
      if (body.byteLength === 0) expect(replay.raw).toBeUndefined();
      else expect(Buffer.from(replay.raw as Uint8Array)).toEqual(Buffer.from(body));
    },
  );

  // The boundaries a drawn status rarely hits: each class's first status, and 401/429 beside it.
  it.each([
    [399, true, true],
    [399, false, true],
    [400, true, true],
    [400, false, false],
    [401, true, false],
    [428, false, false],
    [429, true, false],
    [430, true, true],
    [499, false, false],
    [500, true, false],
    [500, false, false],
    [599, true, false],
  ])('stores %i with storeClientErrors %s: %s', (status, storeClientErrors, stored) => {
    expect(shouldStore(status, storeClientErrors)).toBe(stored);
  });

  it('stores and replays, by default, the headers that describe the representation, what it varies on, or the created resource', () => {
    // Written out here, not taken from the constant under test.
    expect([...DEFAULT_REPLAY_HEADERS]).toEqual([
      'content-type',
      'content-encoding',
      'content-language',
      'content-location',
      'location',
      'etag',
      'last-modified',
      'link',
      'cache-control',
      'vary',
    ]);
  });

  it('stores mixed-case header names under their lower-case name, and only allowed ones', () => {
    const stored = toStoredResponse(
      {
        status: 201,
        headers: {
          'Content-Type': 'application/json',
          ETag: '"a"',
          'Set-Cookie': 's=1',
          'X-Request-Id': 'r',
          link: '<a>',
        },
      },
      new Uint8Array(),
      new Set(['content-type', 'etag', 'link']),
    );
    expect(stored.headers).toEqual({ 'content-type': 'application/json', etag: '"a"', link: '<a>' });
  });

  it('scopes a key by the length-prefixed subject, or as anonymous', () => {
    expect(scopeKey('user-7', 'a1b2')).toBe('sub:6:user-7:a1b2');
    expect(scopeKey(undefined, 'a1b2')).toBe('anonymous:a1b2');
    expect(scopeKey('', 'k')).toBe('sub:0::k');
  });

  test.prop([
    fc.option(fc.string(), { nil: undefined }),
    fc.string(),
    fc.option(fc.string(), { nil: undefined }),
    fc.string(),
  ])(
    'gives two (subject, key) pairs the same store key only when they are the same pair',
    (subA, keyA, subB, keyB) => {
      expect(scopeKey(subA, keyA) === scopeKey(subB, keyB)).toBe(subA === subB && keyA === keyB);
    },
  );
});
