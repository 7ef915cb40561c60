import { describe, expect, it } from 'vitest';
import { hs256Verifier, principalFromClaims, signHs256Token } from '../../src/auth/verifier.js';

// A remembered token's principal is built once and shared by the requests that present it again
// (on Bun a new Set per request was a measurable part of an authenticated write), so nothing a
// request does to it may reach another: it is frozen, and its scopes refuse to change.

const SECRET = 'principal-secret-principal-secret-0123';

describe('the principal of a verified token', () => {
  it('is the same frozen principal each time the token comes again, its scopes unchangeable', async () => {
    const verifier = hs256Verifier({ secret: SECRET });
    const token = await signHs256Token(SECRET, { sub: '7', scope: 'orders:read  orders:write' });
    const first = await verifier.verify(token);
    const again = await verifier.verify(token);
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect([...first.scopes]).toEqual(['orders:read', 'orders:write']);
    const scopes = first.scopes as Set<string>;
    expect(() => scopes.add('admin')).toThrow(TypeError);
    expect(() => scopes.delete('orders:read')).toThrow(TypeError);
    expect(() => scopes.clear()).toThrow(TypeError);
    expect(first.scopes.has('admin')).toBe(false);
    expect(first.scopes.size).toBe(2);
  });

  it("is another caller's own principal for another token", async () => {
    const verifier = hs256Verifier({ secret: SECRET });
    const mine = await verifier.verify(await signHs256Token(SECRET, { sub: '7', scope: 'a' }));
    const theirs = await verifier.verify(await signHs256Token(SECRET, { sub: '8', scope: 'b' }));
    expect([mine.sub, [...mine.scopes]]).toEqual(['7', ['a']]);
    expect([theirs.sub, [...theirs.scopes]]).toEqual(['8', ['b']]);
  });

  it('is built afresh from claims that are not frozen (a payload the caller may still change)', () => {
    const claims = { sub: '9', scope: 'x' };
    const first = principalFromClaims(claims);
    claims.scope = 'y';
    expect([...principalFromClaims(claims).scopes]).toEqual(['y']);
    expect([...first.scopes]).toEqual(['x']);
  });
});
