import { fc, test } from '@fast-check/vitest';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { checkTimeClaims } from '../../src/auth/claims.js';
import { hs256Verifier, InvalidTokenError, jwtVerifier } from '../../src/auth/index.js';

const SECRET = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
const NOW = 1_800_000_000; // seconds

async function token(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ sub: '1', ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(SECRET);
}

const clock = () => NOW * 1000;

describe('token lifetime and clock skew are bounded (issue 18, item 9)', () => {
  const verifier = hs256Verifier({ secret: SECRET, now: clock });

  it('refuses a token that never expires (exp 1e308)', async () => {
    await expect(verifier.verify(await token({ iat: NOW, exp: 1e308 }))).rejects.toThrow(InvalidTokenError);
  });

  it('refuses a token issued in the future beyond the clock tolerance (30 s by default)', async () => {
    await expect(verifier.verify(await token({ iat: NOW + 31, exp: NOW + 600 }))).rejects.toThrow(
      InvalidTokenError,
    );
    await expect(verifier.verify(await token({ iat: NOW + 30, exp: NOW + 600 }))).resolves.toMatchObject({
      sub: '1',
    });
  });

  it('refuses a token older than maxTokenAgeSeconds (24 h by default), measured from iat', async () => {
    await expect(verifier.verify(await token({ iat: NOW - 86_400 - 31, exp: NOW + 60 }))).rejects.toThrow(
      InvalidTokenError,
    );
    await expect(verifier.verify(await token({ iat: NOW - 3600, exp: NOW + 60 }))).resolves.toBeDefined();
  });

  it('refuses a token whose lifetime (exp - iat) exceeds maxTokenAgeSeconds', async () => {
    const short = hs256Verifier({ secret: SECRET, now: clock, maxTokenAgeSeconds: 600 });
    await expect(short.verify(await token({ iat: NOW, exp: NOW + 601 }))).rejects.toThrow(InvalidTokenError);
    await expect(short.verify(await token({ iat: NOW, exp: NOW + 600 }))).resolves.toBeDefined();
  });

  it('without iat, accepts a token only if it expires within maxTokenAgeSeconds from now', async () => {
    await expect(verifier.verify(await token({ exp: NOW + 86_400 + 31 }))).rejects.toThrow(InvalidTokenError);
    await expect(verifier.verify(await token({ exp: NOW + 3600 }))).resolves.toBeDefined();
  });

  it('refuses expired tokens beyond the tolerance and accepts them within it', async () => {
    await expect(verifier.verify(await token({ iat: NOW - 100, exp: NOW - 31 }))).rejects.toThrow(
      InvalidTokenError,
    );
    await expect(verifier.verify(await token({ iat: NOW - 100, exp: NOW - 29 }))).resolves.toBeDefined();
  });

  it('validates its options at creation, naming the bad one', () => {
    expect(() => jwtVerifier({ key: SECRET, algorithms: ['HS256'], maxTokenAgeSeconds: 0 })).toThrow(
      /maxTokenAgeSeconds/,
    );
    expect(() => jwtVerifier({ key: SECRET, algorithms: ['HS256'], clockToleranceSeconds: -1 })).toThrow(
      /clockToleranceSeconds/,
    );
  });
});

describe('checkTimeClaims, against a model', () => {
  const time = fc.oneof(fc.integer({ min: NOW - 200_000, max: NOW + 200_000 }), fc.constant(1e308));
  test.prop([
    fc.option(time, { nil: undefined }),
    fc.option(time, { nil: undefined }),
    fc.integer({ min: 1, max: 100_000 }),
    fc.integer({ min: 0, max: 300 }),
  ])('accepts exactly the tokens a direct reading of the policy accepts', (iat, exp, maxAge, skew) => {
    // The policy in words: exp is required and not past (with skew); iat, when present, is not in the
    // future (with skew), not older than maxAge, and exp is at most maxAge after it; without iat,
    // exp is at most maxAge (plus skew) from now.
    const expected =
      exp !== undefined &&
      exp + skew > NOW &&
      (iat === undefined
        ? exp <= NOW + maxAge + skew
        : iat <= NOW + skew && NOW - iat <= maxAge + skew && exp - iat <= maxAge);
    let accepted = true;
    try {
      checkTimeClaims(
        { ...(iat === undefined ? {} : { iat }), ...(exp === undefined ? {} : { exp }) },
        { nowSeconds: NOW, maxTokenAgeSeconds: maxAge, clockToleranceSeconds: skew },
      );
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidTokenError);
      accepted = false;
    }
    expect(accepted).toBe(expected);
  });
});
