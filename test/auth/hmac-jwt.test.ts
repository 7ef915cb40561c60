import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { checkTimeClaims, DEFAULT_MAX_TOKEN_AGE_SECONDS } from '../../src/auth/claims.js';
import { isCanonicalBase64url } from '../../src/auth/compact-form.js';
import { DELEGATE, hmacJwtVerifier } from '../../src/auth/hmac-jwt.js';
import { InvalidTokenError, jwtVerifier, principalFromClaims } from '../../src/auth/verifier.js';

const SECRET = randomBytes(32);
const OTHER_SECRET = randomBytes(32);
const NOW_MS = 1_800_000_000_000;
const NOW = NOW_MS / 1000;
const DIGESTS: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

const b64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');
const mac = (alg: string, secret: Uint8Array, input: string) =>
  createHmac(DIGESTS[alg] ?? 'sha256', secret)
    .update(input)
    .digest('base64url');

interface Options {
  readonly algorithms: string[];
  readonly clockToleranceSeconds: number;
  readonly issuer?: string;
  readonly audience?: string;
}

/**
 * A refusal (jose's error class, code and message), or a failure that is not about the token (such
 * as an RS256 allow-list with a shared secret: a server error on both paths).
 */
function outcomeOf(error: unknown) {
  if (error instanceof joseErrors.JOSEError)
    return { error: [error.constructor.name, error.code, error.message] };
  if (error instanceof Error) return { failure: [error.constructor.name, error.message] };
  throw error;
}

/** What jose itself says of a token: the claims, or the error's class, code and message. */
async function joseOutcome(token: string, options: Options) {
  try {
    const { payload } = await jwtVerify(token, SECRET, {
      algorithms: options.algorithms,
      requiredClaims: ['exp', 'sub'],
      clockTolerance: options.clockToleranceSeconds,
      currentDate: new Date(NOW_MS),
      ...(options.issuer ? { issuer: options.issuer } : {}),
      ...(options.audience ? { audience: options.audience } : {}),
    });
    return { claims: payload };
  } catch (error) {
    return outcomeOf(error);
  }
}

/** The fast path's outcome in the same shape; `delegated` when it leaves the token to jose. */
function fastOutcome(token: string, options: Options) {
  const verify = hmacJwtVerifier({ secret: SECRET, now: () => NOW_MS, ...options });
  try {
    const claims = verify(token);
    return claims === DELEGATE ? 'delegated' : { claims };
  } catch (error) {
    return outcomeOf(error);
  }
}

// Raw JSON texts, so that duplicate names, huge numbers and odd values reach the parser as written.
const jsonValue = fc.oneof(
  fc.constantFrom(
    '"1"',
    '""',
    '1',
    '-0',
    '1e400',
    '-1e400',
    'null',
    'true',
    '[]',
    '{}',
    '["api"]',
    '"api"',
    '"ap"',
    '["ap","x"]',
    '["x","api"]',
  ),
  fc.integer({ min: -7200, max: 7200 }).map((d) => String(NOW + d)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
);
const member = fc.tuple(
  fc.constantFrom('sub', 'exp', 'nbf', 'iat', 'iss', 'aud', 'scope', 'alg', 'crit', 'b64', 'typ', 'x'),
  jsonValue,
);
const objectText = (members: [string, string][]) => `{${members.map(([k, v]) => `"${k}":${v}`).join(',')}}`;

const headerText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('HS256', 'HS384', 'HS512').map((alg) => `{"alg":"${alg}","typ":"JWT"}`),
  },
  fc.constantFrom(
    '{"alg":"none"}',
    '{"alg":"RS256"}',
    '{"alg":""}',
    '{"alg":256}',
    '{"typ":"JWT"}',
    '{"alg":"none","alg":"HS256"}',
    '{"alg":"HS256","alg":"none"}',
    '{"alg":"HS256","crit":["b64"],"b64":true}',
    '{"alg":"HS256","crit":["b64"],"b64":false}',
    '{"alg":"HS256","crit":["exp"]}',
    '{"alg":"HS256","crit":[]}',
    '\uFEFF{"alg":"HS256"}',
    '["HS256"]',
    'null',
    'not json',
    '',
  ),
  fc.array(member, { maxLength: 4 }).map(objectText),
);

const claimsText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        sub: fc.oneof(
          { weight: 4, arbitrary: fc.constant('"1"') },
          fc.constantFrom('"user-7"', '""', '1', undefined),
        ),
        exp: fc.oneof(
          fc.integer({ min: -120, max: 3600 }).map((d) => String(NOW + d)),
          fc.constant(undefined),
        ),
        iss: fc.oneof(
          { weight: 3, arbitrary: fc.constant('"1"') },
          fc.constantFrom('"2"', '["1"]', undefined),
        ),
        aud: fc.oneof(
          { weight: 2, arbitrary: fc.constant('"api"') },
          fc.constantFrom('"ap"', '"xapi"', '["x","api"]', '["ap"]', 'null', undefined),
        ),
        extra: fc.array(member, { maxLength: 2 }),
      })
      .map(({ sub, exp, iss, aud, extra }) =>
        objectText([
          ...(iss === undefined ? [] : ([['iss', iss]] as [string, string][])),
          ...(aud === undefined ? [] : ([['aud', aud]] as [string, string][])),
          ...(sub === undefined ? [] : ([['sub', sub]] as [string, string][])),
          ...(exp === undefined ? [] : ([['exp', exp]] as [string, string][])),
          ...extra,
        ]),
      ),
  },
  fc.constantFrom('[]', 'null', '"sub"', 'not json', '', `{"sub":"1","exp":${NOW + 60},"exp":${NOW - 60}}`),
);

/** Bytes that are not well-formed UTF-8, or carry a byte-order mark. */
const oddBytes = fc.constantFrom(
  Uint8Array.of(0xff, 0xfe, 0x7b, 0x7d),
  Uint8Array.of(0x7b, 0xc3, 0x7d),
  Buffer.from(`\uFEFF{"sub":"1","exp":${NOW + 60}}`),
);

const token = fc
  .record({
    header: fc.oneof({ weight: 9, arbitrary: headerText.map((t) => b64(t)) }, oddBytes.map(b64)),
    payload: fc.oneof({ weight: 9, arbitrary: claimsText.map((t) => b64(t)) }, oddBytes.map(b64)),
    signer: fc.constantFrom('named', 'named', 'named', 'named', 'HS256', 'HS384', 'HS512'),
    // Mostly well-formed: a mangled token is handed to jose whole, which proves nothing of this path.
    signature: fc.constantFrom(
      ...Array<'right'>(6).fill('right'),
      'other-secret',
      'tampered',
      'empty',
      'garbage',
    ),
    mangle: fc.constantFrom(
      ...Array<'none'>(15).fill('none'),
      'padding',
      'space',
      'extra-segment',
      'two-segments',
      'plus',
    ),
  })
  .map(({ header, payload, signer, signature, mangle }) => {
    const input = `${header}.${payload}`;
    // Usually signed with the algorithm the header names; sometimes with another one.
    const named = /"alg":"(HS\d+)"/.exec(Buffer.from(header, 'base64url').toString())?.[1];
    const alg = signer === 'named' ? (named ?? 'HS256') : signer;
    const right = mac(alg, SECRET, input);
    const sig = {
      right,
      'other-secret': mac(alg, OTHER_SECRET, input),
      tampered: `${right.slice(0, 5)}${right[5] === 'A' ? 'B' : 'A'}${right.slice(6)}`,
      empty: '',
      garbage: 'abc',
    }[signature];
    const jws = `${input}.${sig}`;
    switch (mangle) {
      case 'padding':
        return `${jws}=`;
      case 'space':
        return `${header} .${payload}.${sig}`;
      case 'extra-segment':
        return `${jws}.`;
      case 'two-segments':
        return input;
      case 'plus':
        return `${input}.${sig.replace(/-/g, '+')}+`;
      default:
        return jws;
    }
  });

const options: fc.Arbitrary<Options> = fc.record(
  {
    algorithms: fc.oneof(
      { weight: 3, arbitrary: fc.constant<string[]>(['HS256', 'HS384', 'HS512']) },
      fc.subarray(['HS256', 'HS384', 'HS512', 'RS256'], { minLength: 1 }),
    ),
    clockToleranceSeconds: fc.constantFrom(0, 0, 30, 120),
    issuer: fc.constant('1'),
    audience: fc.constant('api'),
  },
  { requiredKeys: ['algorithms', 'clockToleranceSeconds'] },
);

/** A JWS over `header` and `claims` (JSON texts), signed with `alg` and `secret`. */
const signedWith = (alg: string, secret: Uint8Array, header: string, claims: string) => {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${mac(alg, secret, input)}`;
};

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Any string a client could put after `Bearer `, and a few it could not: mostly base64url and dots. */
const arbitraryText = fc.string({
  unit: fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...BASE64URL) },
    { weight: 3, arbitrary: fc.constant('.') },
    fc.constantFrom('=', '+', '/', ' ', '\n', '\u00e9', '\u0000'),
  ),
  maxLength: 120,
});

/** Claims of any JSON shape beside a valid `sub` and `exp`, so that the claims set jose returns is compared whole. */
const arbitraryClaims = fc
  .record({
    extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    exp: fc.integer({ min: -60, max: 3600 }).map((d) => NOW + d),
  })
  .map(({ extra, exp }) => JSON.stringify({ ...extra, sub: '1', exp }));

/** A token signed right, then one character of it replaced, at any place: header, claims, signature or a dot. */
const tamperedToken = fc
  .record({
    alg: fc.constantFrom('HS256', 'HS384', 'HS512'),
    claims: fc.oneof(arbitraryClaims, claimsText),
    at: fc.nat(),
    by: fc.constantFrom(...BASE64URL, '.', '='),
  })
  .map(({ alg, claims, at, by }) => {
    const jws = signedWith(alg, SECRET, `{"alg":"${alg}","typ":"JWT"}`, claims);
    const i = at % jws.length;
    return `${jws.slice(0, i)}${by}${jws.slice(i + 1)}`;
  });

/** A token signed right with arbitrary claims (by the named algorithm, or another one). */
const signedArbitrary = fc
  .record({
    alg: fc.constantFrom('HS256', 'HS384', 'HS512'),
    signer: fc.constantFrom('named', 'HS256', 'HS512'),
    claims: arbitraryClaims,
  })
  .map(({ alg, signer, claims }) =>
    signedWith(signer === 'named' ? alg : signer, SECRET, `{"alg":"${alg}"}`, claims),
  );

/**
 * Every kind of token the properties below try: arbitrary text, one character replaced in a signed
 * token, well-signed tokens with arbitrary claims, and the structured ones above (odd headers and
 * claims, other keys and algorithms, mangled spellings).
 */
const anyToken = fc.oneof(arbitraryText, tamperedToken, signedArbitrary, token);

describe('the HMAC fast path', () => {
  it('accepts and refuses exactly what jose does, with the same claims and errors (property)', async () => {
    let decided = 0;
    await fc.assert(
      fc.asyncProperty(anyToken, options, async (jws, opts) => {
        const fast = fastOutcome(jws, opts);
        // Left to jose: a non-canonical spelling (which jwtVerifier refuses), a crit header, an
        // algorithm that is not HMAC. Everything else is decided here and must match jose.
        if (fast === 'delegated') return;
        decided++;
        expect(fast).toEqual(await joseOutcome(jws, opts));
      }),
      { numRuns: 4000 },
    );
    // Not a property that holds by handing tokens over: most are decided on this path.
    expect(decided).toBeGreaterThan(2000);
  });

  it('gives jwtVerifier the same principal or the same InvalidTokenError as jose alone (property)', async () => {
    await fc.assert(
      fc.asyncProperty(anyToken, options, async (jws, opts) => {
        const verifier = jwtVerifier({ key: SECRET, now: () => NOW_MS, ...opts });
        // jwtVerifier refuses any spelling but the canonical one before jose decodes it (issue 27).
        const canonical = jws.split('.').length === 3 && jws.split('.').every(isCanonicalBase64url);
        const expected = canonical
          ? await joseOutcome(jws, opts)
          : { error: ['JWSInvalid', 'ERR_JWS_INVALID', 'JWS must be three canonical base64url segments'] };
        const actual = await verifier.verify(jws).then(
          (principal) => ({ principal }),
          (error: unknown) => ({ error }),
        );
        if ('claims' in expected) {
          let principal: unknown;
          try {
            // jwtVerifier = jose's checks, then the lifetime bounds (checkTimeClaims, tested on its own
            // against a model in claims.test.ts), then the principal.
            checkTimeClaims(expected.claims, {
              nowSeconds: NOW_MS / 1000,
              maxTokenAgeSeconds: DEFAULT_MAX_TOKEN_AGE_SECONDS,
              clockToleranceSeconds: opts.clockToleranceSeconds ?? 30,
            });
            principal = principalFromClaims(expected.claims);
          } catch (error) {
            expect((actual as { error: Error }).error).toEqual(error);
            return;
          }
          expect(actual).toEqual({ principal });
        } else if ('failure' in expected) {
          expect(outcomeOf((actual as { error: unknown }).error)).toEqual(expected);
        } else {
          expect((actual as { error: unknown }).error).toBeInstanceOf(InvalidTokenError);
          expect((actual as { error: Error }).error.message).toBe(expected.error![1]);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('decides ordinary tokens itself, without jose', async () => {
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      const jws = await new SignJWT({ sub: '1', scope: 'orders:write' })
        .setProtectedHeader({ alg, typ: 'JWT' })
        .setExpirationTime(NOW + 60)
        .sign(SECRET);
      const options = { algorithms: [alg], clockToleranceSeconds: 0 };
      expect(fastOutcome(jws, options)).toEqual({
        claims: { sub: '1', scope: 'orders:write', exp: NOW + 60 },
      });
      const [header, payload] = jws.split('.');
      expect(
        fastOutcome(`${header}.${payload}.${mac(alg, OTHER_SECRET, `${header}.${payload}`)}`, options),
      ).toEqual({
        error: [
          'JWSSignatureVerificationFailed',
          'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
          'signature verification failed',
        ],
      });
    }
  });

  it('leaves crit headers, non-HMAC algorithms and non-canonical base64url to jose', () => {
    const options = { algorithms: ['HS256', 'RS256'], clockToleranceSeconds: 0 };
    const payload = b64(`{"sub":"1","exp":${NOW + 60}}`);
    for (const header of ['{"alg":"HS256","crit":["b64"],"b64":true}', '{"alg":"RS256"}']) {
      expect(
        fastOutcome(
          `${b64(header)}.${payload}.${mac('HS256', SECRET, `${b64(header)}.${payload}`)}`,
          options,
        ),
      ).toBe('delegated');
    }
    expect(fastOutcome(`${b64('{"alg":"HS256"}')}=.${payload}.x`, options)).toBe('delegated');
  });

  it('honours the clock tolerance at the exact edges of exp and nbf (RFC 7519 sections 4.1.4, 4.1.5)', async () => {
    const options = { algorithms: ['HS256'], clockToleranceSeconds: 30 };
    const header = b64('{"alg":"HS256"}');
    const at = (claims: string) => {
      const payload = b64(claims);
      return `${header}.${payload}.${mac('HS256', SECRET, `${header}.${payload}`)}`;
    };
    const accepted = (claims: string) => 'claims' in (fastOutcome(at(claims), options) as object);
    expect(accepted(`{"sub":"1","exp":${NOW - 29}}`)).toBe(true);
    expect(accepted(`{"sub":"1","exp":${NOW - 30}}`)).toBe(false);
    expect(accepted(`{"sub":"1","exp":${NOW + 60},"nbf":${NOW + 30}}`)).toBe(true);
    expect(accepted(`{"sub":"1","exp":${NOW + 60},"nbf":${NOW + 31}}`)).toBe(false);
  });

  it('answers a remembered token as it would a new one, whatever the clock does (property)', () => {
    const header = b64('{"alg":"HS256"}');
    const signed = (claims: string) => {
      const payload = b64(claims);
      return `${header}.${payload}.${mac('HS256', SECRET, `${header}.${payload}`)}`;
    };
    // Tokens valid over different spans around NOW; the clock then jumps back and forth over them.
    const pool = [
      signed(`{"sub":"1","exp":${NOW + 10}}`),
      signed(`{"sub":"2","exp":${NOW + 60},"nbf":${NOW - 5}}`),
      signed(`{"sub":"3","exp":${NOW + 30},"nbf":${NOW + 20}}`),
      signed(`{"sub":"4","exp":${NOW},"scope":"a b"}`),
      signed(`{"sub":"5","exp":1e400}`),
    ];
    const step = fc.record({
      token: fc.nat({ max: pool.length - 1 }),
      at: fc.integer({ min: -40, max: 80 }),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.constantFrom(0, 5),
        (steps, clockToleranceSeconds) => {
          let clock = NOW_MS;
          const options = { secret: SECRET, algorithms: ['HS256'], clockToleranceSeconds, now: () => clock };
          const remembering = hmacJwtVerifier({ ...options, cacheSize: 2 });
          const forgetting = hmacJwtVerifier({ ...options, cacheSize: 0 });
          const outcome = (verify: typeof remembering, jws: string) => {
            try {
              return { claims: verify(jws) };
            } catch (error) {
              return outcomeOf(error);
            }
          };
          for (const { token: index, at } of steps) {
            clock = NOW_MS + at * 1000;
            const jws = pool[index]!;
            expect(outcome(remembering, jws)).toEqual(outcome(forgetting, jws));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('shares frozen claims between the requests that present a remembered token', () => {
    const verify = hmacJwtVerifier({
      secret: SECRET,
      algorithms: ['HS256'],
      clockToleranceSeconds: 0,
      now: () => NOW_MS,
    });
    const header = b64('{"alg":"HS256"}');
    const payload = b64(`{"sub":"1","exp":${NOW + 60},"roles":["reader"]}`);
    const jws = `${header}.${payload}.${mac('HS256', SECRET, `${header}.${payload}`)}`;
    const first = verify(jws) as { roles: string[] };
    expect(verify(jws)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.roles)).toBe(true);
  });

  it('refuses a negative or non-finite clock tolerance at start-up', () => {
    for (const clockToleranceSeconds of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => jwtVerifier({ key: SECRET, algorithms: ['HS256'], clockToleranceSeconds })).toThrow(
        /clockToleranceSeconds/,
      );
    }
  });
});
