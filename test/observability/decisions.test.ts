import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { countedBy, decisionAttributes } from '../../src/observability/attributes.js';
import { type ConventionDecisions, conventionDecisions } from '../../src/observability/decisions.js';

/** One error a convention answers with, and what each convention should be read to have decided. */
interface ErrorCase {
  readonly status: number;
  readonly code: string;
  readonly expect: Partial<ConventionDecisions>;
}

// The model: written from docs/errors.md's catalogue, independently of the lookup tables in src.
const ERRORS: readonly ErrorCase[] = [
  { status: 409, code: 'idempotency-request-in-progress', expect: { idempotency: 'conflict' } },
  { status: 422, code: 'idempotency-key-reused', expect: { idempotency: 'mismatch' } },
  { status: 400, code: 'idempotency-key-missing', expect: { idempotency: 'refused' } },
  { status: 400, code: 'invalid-idempotency-key', expect: { idempotency: 'refused' } },
  { status: 503, code: 'idempotency-store-unavailable', expect: { idempotency: 'unavailable' } },
  { status: 503, code: 'idempotency-store-full', expect: { idempotency: 'unavailable' } },
  { status: 429, code: 'idempotency-quota-exceeded', expect: { idempotency: 'unavailable' } },
  { status: 503, code: 'database-unavailable', expect: { idempotency: 'unavailable' } },
  { status: 412, code: 'precondition-failed', expect: { precondition: 'failed' } },
  { status: 428, code: 'precondition-required', expect: { precondition: 'required' } },
  { status: 429, code: 'quota-exceeded', expect: { rateLimit: 'refused' } },
  { status: 503, code: 'rate-limit-unavailable', expect: { rateLimit: 'unavailable' } },
  { status: 401, code: 'unauthenticated', expect: { auth: 'unauthenticated' } },
  { status: 401, code: 'invalid-token', expect: { auth: 'unauthenticated' } },
  { status: 401, code: 'unsupported-scheme', expect: { auth: 'unauthenticated' } },
  { status: 403, code: 'insufficient-scope', expect: { auth: 'forbidden' } },
  { status: 403, code: 'forbidden', expect: { auth: 'forbidden' } },
  { status: 410, code: 'sunset', expect: { sunset: true, deprecated: true } },
  { status: 400, code: 'invalid-field', expect: {} },
  { status: 404, code: 'not-found', expect: {} },
  { status: 500, code: 'internal-server-error', expect: {} },
];

const policyName = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const scenario = fc.record({
  error: fc.option(
    fc.record({
      kind: fc.constantFrom(...ERRORS),
      // Further problems of the same answer (validation lists one per field), and those capped away.
      more: fc.nat({ max: 4 }),
      omitted: fc.nat({ max: 3 }),
      form: fc.constantFrom('problem', 'jsonapi'),
    }),
    { nil: undefined },
  ),
  notModified: fc.boolean(),
  replayed: fc.boolean(),
  cacheControl: fc.option(fc.constantFrom('no-store', 'private, max-age=60', 'public, max-age=300'), {
    nil: undefined,
  }),
  rateLimit: fc.array(fc.record({ name: policyName, r: fc.nat({ max: 1000 }), t: fc.nat({ max: 90 }) }), {
    maxLength: 3,
  }),
  deprecation: fc.boolean(),
  apiVersion: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
  subject: fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: undefined }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The answer a server gives in a scenario: the input of conventionDecisions. */
function answerOf(s: Scenario) {
  const headers: Record<string, string> = {};
  if (s.replayed) headers['idempotent-replayed'] = 'true';
  if (s.cacheControl !== undefined) headers['cache-control'] = s.cacheControl;
  if (s.rateLimit.length > 0)
    headers.ratelimit = s.rateLimit.map((p) => `"${p.name}";r=${p.r};t=${p.t}`).join(', ');
  if (s.deprecation) headers.deprecation = '@1735689600';
  let status = s.notModified ? 304 : 200;
  let json: unknown;
  if (s.error !== undefined) {
    const { kind, more, omitted, form } = s.error;
    status = kind.status;
    const objects = Array.from({ length: 1 + more }, (_, i) => ({
      status: String(status),
      code: i === 0 ? kind.code : 'invalid-field',
      title: 'x',
      detail: 'y',
    }));
    const meta = omitted > 0 ? { meta: { omittedErrors: omitted } } : {};
    json =
      form === 'jsonapi'
        ? { errors: objects, ...meta }
        : more === 0
          ? { type: 'about:blank', title: 'x', status, detail: 'y', code: kind.code, ...meta }
          : {
              type: 'about:blank',
              title: 'x',
              status,
              detail: 'y',
              code: 'multiple-errors',
              errors: objects,
              ...meta,
            };
  }
  return { status, headers, json, apiVersion: s.apiVersion, subject: s.subject };
}

/** What the model says each convention decided. */
function expected(s: Scenario): ConventionDecisions {
  const e = s.error?.kind.expect ?? {};
  const out: Record<string, unknown> = { auth: s.subject === undefined ? 'anonymous' : 'authenticated' };
  if (s.error !== undefined) {
    out.errorCode = s.error.kind.code;
    out.errorCount = 1 + s.error.more + s.error.omitted;
  }
  if (s.replayed) out.idempotency = 'replayed';
  else if (e.idempotency) out.idempotency = e.idempotency;
  if (s.error === undefined && s.notModified) out.precondition = 'not-modified';
  if (e.precondition) out.precondition = e.precondition;
  if (s.cacheControl !== undefined) out.cachePolicy = s.cacheControl;
  if (e.rateLimit) out.rateLimit = e.rateLimit;
  else if (s.rateLimit.length > 0) out.rateLimit = 'allowed';
  if (s.rateLimit.length > 0) {
    const least = Math.min(...s.rateLimit.map((p) => p.r));
    out.rateLimitRemaining = least;
    out.rateLimitPolicy = s.rateLimit.find((p) => p.r === least)!.name;
  }
  if (s.apiVersion !== undefined) out.apiVersion = s.apiVersion;
  if (e.sunset) out.sunset = true;
  if (e.deprecated || s.deprecation) out.deprecated = true;
  if (e.auth) out.auth = e.auth;
  if (s.subject !== undefined) out.subject = s.subject;
  return out as unknown as ConventionDecisions;
}

describe('conventionDecisions', () => {
  test.prop([scenario])('reads back every decision the answer shows, as the model says', (s) => {
    expect(conventionDecisions(answerOf(s))).toEqual(expected(s));
  });

  test.prop([scenario])('counts a request once per counter its decisions call for', (s) => {
    const d = expected(s);
    const counters = countedBy(d);
    expect(counters.includes('idempotency.replays')).toBe(d.idempotency === 'replayed');
    expect(counters.includes('idempotency.conflicts')).toBe(
      d.idempotency === 'conflict' || d.idempotency === 'mismatch',
    );
    expect(counters.includes('precondition.failures')).toBe(
      d.precondition === 'failed' || d.precondition === 'required',
    );
    expect(counters.includes('ratelimit.refusals')).toBe(d.rateLimit === 'refused');
    expect(counters.includes('deprecated.calls')).toBe(d.deprecated === true);
  });

  it('reports the subject and never a token', () => {
    const d = conventionDecisions({
      status: 200,
      headers: { authorization: 'Bearer abc.def.ghi' },
      subject: 'alice',
    });
    expect(decisionAttributes(d)).toEqual({
      'rest_conventions.auth.outcome': 'authenticated',
      'enduser.id': 'alice',
    });
  });

  it('reads a replay of a stored 201 and the rate limit it passed', () => {
    const d = conventionDecisions({
      status: 201,
      headers: {
        'idempotent-replayed': 'true',
        ratelimit: '"default";r=41;t=60',
        'cache-control': 'no-store',
      },
    });
    expect(decisionAttributes(d)).toEqual({
      'rest_conventions.auth.outcome': 'anonymous',
      'rest_conventions.idempotency.outcome': 'replayed',
      'rest_conventions.cache.policy': 'no-store',
      'rest_conventions.ratelimit.decision': 'allowed',
      'rest_conventions.ratelimit.policy': 'default',
      'rest_conventions.ratelimit.remaining': 41,
    });
  });

  it('skips a RateLimit item that does not parse, and reads no error code from a success', () => {
    const d = conventionDecisions({
      status: 200,
      headers: { ratelimit: 'garbage, "p";r=3;t=1' },
      json: { code: 'x' },
    });
    expect(d).toEqual({
      auth: 'anonymous',
      rateLimit: 'allowed',
      rateLimitPolicy: 'p',
      rateLimitRemaining: 3,
    });
  });
});
