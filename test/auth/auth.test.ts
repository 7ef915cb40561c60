import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { hasSecondCredential } from '../../src/auth/credentials.js';
import { authenticate, requireAuth, requireScopes } from '../../src/auth/middleware.js';
import {
  hs256Verifier,
  InvalidTokenError,
  jwtVerifier,
  signHs256Token,
  type TokenVerifier,
} from '../../src/auth/verifier.js';
import { json } from '../../src/core/response.js';
import { recordingLogger, send } from '../core/send.js';

const SECRET = randomBytes(32).toString('base64url');
const OTHER_SECRET = randomBytes(32).toString('base64url');
const key = (secret: string) => new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);

/** A token with exactly the given claims and header, signed with jose. */
function sign(claims: Record<string, unknown>, options: { secret?: string; alg?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .sign(key(options.secret ?? SECRET));
}
const valid = (extra: Record<string, unknown> = {}) => sign({ sub: '1', exp: now() + 3600, ...extra });

function appWith(verifier: TokenVerifier, options: { realm?: string } = {}) {
  const logger = recordingLogger();
  const app = createApp({ use: [authenticate({ verifier, ...options })], logger })
    .route({
      method: 'GET',
      path: '/books',
      handler: (ctx) =>
        json(200, {
          data: [],
          meta: ctx.var.principal
            ? { sub: ctx.var.principal.sub, scopes: [...ctx.var.principal.scopes].sort() }
            : { anonymous: true },
        }),
    })
    .route({
      method: 'GET',
      path: '/orders',
      use: [requireAuth(options)],
      handler: (ctx) => json(200, { data: [], meta: { sub: ctx.var.principal?.sub ?? null } }),
    })
    .route({
      method: 'POST',
      path: '/orders',
      use: [requireScopes({ scopes: ['orders:write'], ...options })],
      handler: () => json(201, { data: { type: 'orders', id: '1' } }),
    });
  return { app, logger };
}

const { app } = appWith(hs256Verifier({ secret: SECRET }));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('authentication', () => {
  describe('when the token is valid', () => {
    it('sets the principal with its subject and scopes', async () => {
      const token = await valid({ scope: 'orders:read  orders:write' });
      const res = await send(app, 'GET', '/books', { headers: bearer(token) });
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ sub: '1', scopes: ['orders:read', 'orders:write'] });
    });

    it('passes requireAuth', async () => {
      const res = await send(app, 'GET', '/orders', { headers: bearer(await valid()) });
      expect(res.status).toBe(200);
      expect(res.body.meta.sub).toBe('1');
    });

    it('accepts the scheme in any letter case (RFC 9110 section 11.1)', async () => {
      const res = await send(app, 'GET', '/orders', {
        headers: { authorization: `bearer ${await valid()}` },
      });
      expect(res.status).toBe(200);
    });

    it('accepts tokens minted by signHs256Token', async () => {
      const token = await signHs256Token(SECRET, { sub: '2', scope: 'orders:write' });
      const res = await send(app, 'POST', '/orders', { headers: bearer(token) });
      expect(res.status).toBe(201);
    });
  });

  describe('when there are no credentials', () => {
    it('lets a public route answer anonymously', async () => {
      const res = await send(app, 'GET', '/books');
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ anonymous: true });
    });

    it('answers 401 with a bare Bearer challenge where authentication is required', async () => {
      for (const [method, path] of [
        ['GET', '/orders'],
        ['POST', '/orders'],
      ] as const) {
        const res = await send(app, method, path);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
        expect(res.body.errors[0]).toMatchObject({
          status: '401',
          code: 'unauthenticated',
          source: { header: 'Authorization' },
        });
      }
    });

    it('uses the configured realm', async () => {
      const custom = appWith(hs256Verifier({ secret: SECRET }), { realm: 'books' }).app;
      expect((await send(custom, 'GET', '/orders')).headers['www-authenticate']).toBe('Bearer realm="books"');
    });
  });

  describe('when the token is not valid', () => {
    const cases: [string, () => Promise<string>][] = [
      ['expired', () => sign({ sub: '1', exp: now() - 60 })],
      ['signed with another secret', () => sign({ sub: '1', exp: now() + 3600 }, { secret: OTHER_SECRET })],
      [
        'tampered with',
        async () => {
          const [header, , signature] = (await valid()).split('.');
          const payload = base64url.encode(JSON.stringify({ sub: '2', exp: now() + 3600 }));
          return `${header}.${payload}.${signature}`;
        },
      ],
      [
        'unsigned (alg: none)',
        async () => {
          const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
          const payload = base64url.encode(
            JSON.stringify({ sub: '1', exp: now() + 3600, scope: 'orders:write' }),
          );
          return `${header}.${payload}.`;
        },
      ],
      ['signed with HS512', () => sign({ sub: '1', exp: now() + 3600 }, { alg: 'HS512' })],
      [
        'signed with RS256',
        async () => {
          const { privateKey } = await generateKeyPair('RS256');
          return new SignJWT({ sub: '1', exp: now() + 3600 })
            .setProtectedHeader({ alg: 'RS256' })
            .sign(privateKey);
        },
      ],
      ['without exp', () => sign({ sub: '1' })],
      ['without sub', () => sign({ exp: now() + 3600 })],
      ['with an empty sub', () => sign({ sub: '', exp: now() + 3600 })],
      ['with a numeric sub', () => sign({ sub: 1, exp: now() + 3600 })],
      ['not yet valid', () => sign({ sub: '1', exp: now() + 7200, nbf: now() + 3600 })],
      ['not a JWT', async () => 'abc.def.ghi'],
      ['a single segment', async () => 'abcdef'],
    ];

    it.each(cases)('answers 401 invalid_token when it is %s', async (_case, token) => {
      const res = await send(app, 'GET', '/orders', { headers: bearer(await token()) });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
      expect(res.body.errors[0]).toMatchObject({
        code: 'invalid-token',
        source: { header: 'Authorization' },
      });
    });

    it('answers 401 even on a public route (bad credentials are never ignored)', async () => {
      const res = await send(app, 'GET', '/books', {
        headers: bearer(await sign({ sub: '1', exp: now() - 60 })),
      });
      expect(res.status).toBe(401);
    });
  });

  describe('when the Authorization header is anything at all', () => {
    it('never lets the request through unauthenticated and never fails with a 5xx (property)', async () => {
      const tokenish = fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~+/=. '.split('')), maxLength: 60 });
      const header = fc.oneof(
        tokenish.map((t) => `Bearer ${t}`),
        fc.string({ maxLength: 60 }),
      );
      await fc.assert(
        fc.asyncProperty(header, async (authorization) => {
          const res = await send(app, 'GET', '/orders', { headers: { authorization } });
          // Two credentials joined by a comma are a repeated field: 400 (RFC 9110 section 5.3).
          if (res.status === 400) {
            expect(authorization).toContain(',');
            expect(res.body.errors[0].source).toEqual({ header: 'Authorization' });
            return;
          }
          expect(res.status).toBe(401);
          expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
        }),
      );
    });
  });

  describe('when the Authorization header may hold two credentials', () => {
    // The definition of a repeated field joined into one value, as one pattern over the whole value.
    const TWO_CREDENTIALS =
      /^[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+[^,]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?: +[^\s=]|[ \t]*$)/;

    it('decides exactly as the one-pattern definition on any value (property)', () => {
      const unit = fc.constantFrom(...'Bb ,\t=a1-._~+/"\n'.split(''));
      const piece = fc.constantFrom(...'ab=,; \t\u00a0"!Z9.-'.split(''), 'Bearer', 'Basic', ', ');
      const value = fc.oneof(
        fc.string({ unit, maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
      );
      fc.assert(
        fc.property(value, (header) => {
          expect(hasSecondCredential(header)).toBe(TWO_CREDENTIALS.test(header));
        }),
        { numRuns: 2000 },
      );
    });

    it.each([
      ['Bearer abc, Bearer def', true],
      ['Bearer abc,Basic', true],
      [' Bearer abc , Basic dXNlcg==', true],
      ['Bearer abc, realm=x', false],
      ['Bearer abc', false],
      [', Bearer abc', false],
      ['Bearer a, b =c', false],
      ['Bearer a, b\t', true],
      ['Bearer a, b \u00a0', false],
      ['Bearer a,', false],
    ])('says %j is two credentials: %s', (header, expected) => {
      expect(hasSecondCredential(header)).toBe(expected);
      expect(TWO_CREDENTIALS.test(header)).toBe(expected);
    });
  });

  describe('when the Authorization header is malformed', () => {
    it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer tok"en'])(
      'answers 401 invalid_token for the malformed bearer credential %j',
      async (authorization) => {
        const res = await send(app, 'GET', '/books', { headers: { authorization } });
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
        expect(res.body.errors[0]).toMatchObject({ status: '401', source: { header: 'Authorization' } });
      },
    );

    it.each(['Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc'])(
      'answers 401 with a challenge and no error code for the other scheme %j (RFC 6750 section 3.1)',
      async (authorization) => {
        const res = await send(app, 'GET', '/books', { headers: { authorization } });
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
        expect(res.body.errors[0]).toMatchObject({
          code: 'unsupported-scheme',
          source: { header: 'Authorization' },
        });
      },
    );
  });

  describe('when a scope is needed', () => {
    it('answers 403 insufficient_scope to a valid token without it', async () => {
      const res = await send(app, 'POST', '/orders', {
        headers: bearer(await valid({ scope: 'orders:read' })),
      });
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="api", error="insufficient_scope", scope="orders:write"',
      );
      expect(res.body.errors[0]).toMatchObject({ status: '403', code: 'insufficient-scope' });
    });

    it('does not take a scope claim that is not a space-separated string', async () => {
      const res = await send(app, 'POST', '/orders', {
        headers: bearer(await valid({ scope: ['orders:write'] })),
      });
      expect(res.status).toBe(403);
    });

    it('lets the request through with the scope', async () => {
      const res = await send(app, 'POST', '/orders', {
        headers: bearer(await valid({ scope: 'x orders:write' })),
      });
      expect(res.status).toBe(201);
    });

    it.each([[[]], [['two words']], [['quo"te']], [['']]])(
      'refuses the scope list %j at start-up',
      (scopes) => {
        expect(() => requireScopes({ scopes })).toThrow(TypeError);
      },
    );
  });

  describe('when the verifier is configured', () => {
    it('refuses HS256 secrets shorter than 32 bytes', () => {
      expect(() => hs256Verifier({ secret: 'x'.repeat(31) })).toThrow(/at least 32 bytes/);
      expect(() => hs256Verifier({ secret: new Uint8Array(31) })).toThrow(TypeError);
      expect(() => hs256Verifier({ secret: 'x'.repeat(32) })).not.toThrow();
      // Bytes, not characters: 16 two-byte characters are 32 bytes.
      expect(() => hs256Verifier({ secret: 'é'.repeat(16) })).not.toThrow();
    });

    it('refuses to mint with a short secret', async () => {
      await expect(signHs256Token('short', { sub: '1' })).rejects.toThrow(TypeError);
    });

    it('refuses an empty algorithm list and "none"', () => {
      expect(() => jwtVerifier({ key: key(SECRET), algorithms: [] })).toThrow(TypeError);
      expect(() => jwtVerifier({ key: key(SECRET), algorithms: ['HS256', 'none'] })).toThrow(TypeError);
      expect(() => jwtVerifier({ key: key(SECRET), algorithms: ['NONE'] })).toThrow(TypeError);
    });

    it('checks issuer and audience when asked to', async () => {
      const checked = appWith(
        hs256Verifier({ secret: SECRET, issuer: 'https://auth.test', audience: 'api' }),
      ).app;
      const good = await valid({ iss: 'https://auth.test', aud: 'api' });
      const wrongIssuer = await valid({ iss: 'https://evil.test', aud: 'api' });
      const noAudience = await valid({ iss: 'https://auth.test' });
      expect((await send(checked, 'GET', '/orders', { headers: bearer(good) })).status).toBe(200);
      expect((await send(checked, 'GET', '/orders', { headers: bearer(wrongIssuer) })).status).toBe(401);
      expect((await send(checked, 'GET', '/orders', { headers: bearer(noAudience) })).status).toBe(401);
    });
  });

  describe('when a custom TokenVerifier is plugged in', () => {
    let rs256: { app: ReturnType<typeof appWith>['app']; privateKey: CryptoKey };
    beforeAll(async () => {
      const { publicKey, privateKey } = await generateKeyPair('RS256');
      rs256 = { app: appWith(jwtVerifier({ key: publicKey, algorithms: ['RS256'] })).app, privateKey };
    });

    it('accepts RS256 tokens signed with its key pair', async () => {
      const token = await new SignJWT({ sub: '7', exp: now() + 60, scope: 'orders:write' })
        .setProtectedHeader({ alg: 'RS256' })
        .sign(rs256.privateKey);
      const res = await send(rs256.app, 'POST', '/orders', { headers: bearer(token) });
      expect(res.status).toBe(201);
    });

    it('refuses an HS256 token (no algorithm confusion)', async () => {
      const res = await send(rs256.app, 'GET', '/orders', { headers: bearer(await valid()) });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('works with any verifier, such as opaque tokens', async () => {
      const opaque: TokenVerifier = {
        async verify(token) {
          if (token !== 'opaque-token-1') throw new InvalidTokenError('unknown token');
          return { sub: '9', scopes: new Set(['orders:write']), claims: { sub: '9' } };
        },
      };
      const custom = appWith(opaque).app;
      expect((await send(custom, 'POST', '/orders', { headers: bearer('opaque-token-1') })).status).toBe(201);
      expect((await send(custom, 'POST', '/orders', { headers: bearer('opaque-token-2') })).status).toBe(401);
    });

    it('treats a verifier failure other than InvalidTokenError as a server error, logged, never shown', async () => {
      const broken: TokenVerifier = {
        async verify() {
          throw new Error('JWKS endpoint https://internal.example/jwks unreachable');
        },
      };
      const { app: custom, logger } = appWith(broken);
      const res = await send(custom, 'GET', '/orders', { headers: bearer('abc') });
      expect(res.status).toBe(500);
      expect(res.text).not.toContain('internal.example');
      expect(logger.entries).toHaveLength(1);
    });
  });
});
