import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { checkRequestCodings } from '../../src/core/codings.js';
import { ApiError } from '../../src/errors/api-error.js';
import { requestView } from '../support/request.js';

/** The status checkRequestCodings answers for these headers, or 0 when it lets the body through. */
function statusFor(headers: Record<string, string>): number {
  try {
    checkRequestCodings(requestView('POST', '/', { headers }).headers);
    return 0;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).status;
  }
}

const coding = fc.constantFrom(
  'chunked',
  'CHUNKED',
  'gzip',
  'identity',
  'Identity',
  'br',
  'deflate',
  'compress',
  'x-custom',
);
const ows = fc.constantFrom('', ' ', '\t');
/** A list field built from its members, with optional whitespace and empty members. */
const list = fc
  .array(fc.tuple(ows, fc.option(coding, { nil: '' }), ows), { minLength: 1, maxLength: 4 })
  .map((members) => ({
    members: members.map(([, m]) => m).filter((m) => m !== ''),
    text: members.map(([a, m, b]) => `${a}${m}${b}`).join(','),
  }));

describe('checkRequestCodings, against the lists it was given', () => {
  test.prop([list])(
    'a Transfer-Encoding passes exactly when it is chunked alone, else 501',
    ({ members, text }) => {
      const alone = members.length === 1 && members[0]!.toLowerCase() === 'chunked';
      expect(statusFor({ 'transfer-encoding': text })).toBe(alone ? 0 : 501);
    },
  );

  test.prop([list])(
    'a Content-Encoding passes exactly when every member is identity, else 415',
    ({ members, text }) => {
      const identity = members.every((m) => m.toLowerCase() === 'identity');
      expect(statusFor({ 'content-encoding': text })).toBe(identity ? 0 : 415);
    },
  );
});
