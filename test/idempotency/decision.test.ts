import { describe, expect } from 'vitest';
import {
  DEFAULT_REPLAY_HEADERS,
  replayOf,
  shouldStore,
  toStoredResponse,
} from '../../src/idempotency/index.js';
import { fc, test } from '../support/prop.js';

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
});
