import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { bearerCredential, missingScopes } from '../../src/auth/index.js';

// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const b64token = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,40}$/), fc.integer({ min: 0, max: 2 }))
  .map(([body, pad]) => body + '='.repeat(pad));
const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER');

describe('bearerCredential, the plain-value core of authenticate', () => {
  it.each([
    [undefined, { kind: 'absent' }],
    ['Bearer abc.def.ghi', { kind: 'token', token: 'abc.def.ghi' }],
    ['Basic dXNlcjpwdw==', { kind: 'refused', reason: 'other-scheme' }],
    ['Bearer', { kind: 'refused', reason: 'malformed' }],
    ['Bearer a b', { kind: 'refused', reason: 'malformed' }],
    ['Bearer abc, Bearer def', { kind: 'refused', reason: 'repeated' }],
    ['Basic x, Bearer def', { kind: 'refused', reason: 'repeated' }],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerCredential(header)).toEqual(expected);
  });

  test.prop([scheme, fc.integer({ min: 1, max: 3 }), b64token])(
    'returns the token of any Bearer credential, whatever the scheme case and spacing',
    (name, spaces, token) => {
      expect(bearerCredential(`${name}${' '.repeat(spaces)}${token}`)).toEqual({ kind: 'token', token });
    },
  );

  test.prop([b64token, b64token])('refuses two credentials joined into one field', (a, b) => {
    expect(bearerCredential(`Bearer ${a}, Bearer ${b}`)).toEqual({ kind: 'refused', reason: 'repeated' });
  });

  test.prop([scheme, fc.stringMatching(/^[^A-Za-z0-9\-._~+/=,\s][^,]{0,10}$/)])(
    'calls a Bearer credential that is not a b64token malformed',
    (name, junk) => {
      expect(bearerCredential(`${name} ${junk}`)).toEqual({ kind: 'refused', reason: 'malformed' });
    },
  );
});

describe('missingScopes, the plain-value core of requireScopes', () => {
  const scope: fc.Arbitrary<string> = fc.constantFrom('orders:read', 'orders:write', 'books:write', 'admin');
  test.prop([fc.uniqueArray(scope), fc.uniqueArray(scope, { minLength: 1 })])(
    'lists exactly the required scopes not granted, in the order required',
    (granted, required) => {
      const missing = missingScopes(new Set(granted), required);
      expect(missing.every((s) => !granted.includes(s))).toBe(true);
      expect(required.filter((s) => granted.includes(s)).length + missing.length).toBe(required.length);
      expect(missing).toEqual([...missing].sort((a, b) => required.indexOf(a) - required.indexOf(b)));
    },
  );

  it('is empty when every scope is held', () => {
    expect(missingScopes(new Set(['a', 'b']), ['b'])).toEqual([]);
  });
});
