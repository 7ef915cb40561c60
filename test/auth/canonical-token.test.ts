import { fc, test } from '@fast-check/vitest';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { isCanonicalBase64url } from '../../src/auth/compact-form.js';
import { hs256Verifier, InvalidTokenError, jwtVerifier } from '../../src/auth/verifier.js';
import { exchange, listen } from '../hardening/raw-http.js';
import { bearer, referenceApp } from '../support/reference-app.js';

const SECRET = 'a development secret of at least 32 bytes!';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function token(header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader(header as { alg: string })
    .setSubject('1')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(SECRET));
}

/** The same token with the unused low bits of its signature's last character set: the same bytes. */
function otherBits(jws: string): string {
  const last = ALPHABET.indexOf(jws[jws.length - 1]!);
  // An HS256 signature is 32 bytes: 43 characters, the last carrying 2 unused bits.
  return jws.slice(0, -1) + ALPHABET[last ^ 0b01]!;
}

describe('one token, one spelling (RFC 7515 section 2, RFC 4648 section 3.5; issue 27, finding 8)', () => {
  const verifiers = {
    'HMAC fast path': hs256Verifier({ secret: SECRET }),
    'jose path': jwtVerifier({
      key: async () => new TextEncoder().encode(SECRET),
      algorithms: ['HS256'],
    }),
  };

  for (const [name, verifier] of Object.entries(verifiers)) {
    it(`${name}: refuses padding and other values of the unused bits, accepts the canonical form`, async () => {
      const jws = await token();
      await expect(verifier.verify(jws)).resolves.toMatchObject({ sub: '1' });
      expect(Buffer.from(otherBits(jws).split('.')[2]!, 'base64url')).toEqual(
        Buffer.from(jws.split('.')[2]!, 'base64url'),
      );
      for (const variant of [`${jws}=`, otherBits(jws), jws.replace('.', '=.'), ` ${jws}`]) {
        await expect(verifier.verify(variant), variant).rejects.toBeInstanceOf(InvalidTokenError);
      }
    });

    it(`${name}: typ, when present, must say JWT (RFC 8725 section 3.11)`, async () => {
      for (const typ of ['JWT', 'jwt', 'application/jwt', undefined]) {
        const header = typ === undefined ? { alg: 'HS256' } : { alg: 'HS256', typ };
        await expect(verifier.verify(await token(header)), String(typ)).resolves.toMatchObject({ sub: '1' });
      }
      for (const typ of ['none', 'at+jwt', 'JOSE', '', 1]) {
        await expect(verifier.verify(await token({ alg: 'HS256', typ })), String(typ)).rejects.toBeInstanceOf(
          InvalidTokenError,
        );
      }
    });
  }

  test.prop([fc.string({ unit: fc.constantFrom(...`${ALPHABET}=+/ `.split('')), maxLength: 12 })])(
    'a segment is canonical exactly when decoding and encoding it again gives it back',
    (segment) => {
      const model =
        /^[A-Za-z0-9_-]*$/.test(segment) &&
        Buffer.from(segment, 'base64url').toString('base64url') === segment;
      expect(isCanonicalBase64url(segment)).toBe(model);
    },
  );

  it('the reference app answers 401 to a padded token and to typ "none" over a real socket', async () => {
    const { app } = referenceApp();
    const { port, close } = await listen(app);
    try {
      const good = (await bearer('1')).slice('Bearer '.length);
      const none = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'none' })
        .setSubject('1')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(
          new TextEncoder().encode((await import('../../examples/reference-app/config.js')).DEV_AUTH_SECRET),
        );
      for (const credential of [good, `${good}=`, otherBits(good), none]) {
        const reply = await exchange(
          port,
          `GET /users/1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${credential}\r\nConnection: close\r\n\r\n`,
        );
        expect(reply.status, credential).toBe(credential === good ? 200 : 401);
      }
    } finally {
      await close();
    }
  });
});
