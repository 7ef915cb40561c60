import { describe, expect, it } from 'vitest';
import { cachePolicy } from '../../src/caching/index.js';

describe('when building a cache policy from declarative options', () => {
  it('writes the directives of RFC 9111 section 5.2.2 and RFC 5861', () => {
    expect(cachePolicy({ scope: 'public', maxAge: 60 }).anonymous).toBe('public, max-age=60');
    expect(cachePolicy({ scope: 'private', noCache: true }).anonymous).toBe('private, no-cache');
    expect(cachePolicy({ noStore: true }).anonymous).toBe('no-store');
    expect(cachePolicy({ scope: 'public', maxAge: 0, mustRevalidate: true }).anonymous).toBe(
      'public, max-age=0, must-revalidate',
    );
    expect(cachePolicy({ scope: 'public', maxAge: 60, staleWhileRevalidate: 30 }).anonymous).toBe(
      'public, max-age=60, stale-while-revalidate=30',
    );
    expect(cachePolicy({ maxAge: 10 }).anonymous).toBe('max-age=10');
  });

  it('never says public to an authenticated request unless the policy says so', () => {
    expect(cachePolicy({ scope: 'public', maxAge: 60 }).authenticated).toBe('private, max-age=60');
    expect(cachePolicy({ maxAge: 60, mustRevalidate: true }).authenticated).toBe(
      'private, max-age=60, must-revalidate',
    );
    expect(cachePolicy({ scope: 'private', noCache: true }).authenticated).toBe('private, no-cache');
    expect(cachePolicy({ noStore: true }).authenticated).toBe('no-store');
    expect(cachePolicy({ scope: 'public', maxAge: 60, publicWhenAuthenticated: true }).authenticated).toBe(
      'public, max-age=60',
    );
  });

  it('throws a TypeError at start-up for contradictions and bad values', () => {
    const bad: unknown[] = [
      {},
      { noStore: true, maxAge: 5 },
      { noStore: true, scope: 'private' },
      { maxAge: -1 },
      { maxAge: 1.5 },
      { maxAge: 2_147_483_649 },
      { scope: 'shared' },
      { staleWhileRevalidate: 10 },
      { maxAge: 10, staleWhileRevalidate: 10, noCache: true },
      { maxAge: 10, staleWhileRevalidate: 10, mustRevalidate: true },
      { scope: 'private', publicWhenAuthenticated: true },
      { scope: 'public', maxage: 60 },
    ];
    for (const options of bad) {
      expect(
        () => cachePolicy(options as Parameters<typeof cachePolicy>[0]),
        JSON.stringify(options),
      ).toThrow(TypeError);
    }
  });
});
