/**
 * The problem types of draft-ietf-httpapi-ratelimit-headers-11 (section 5): the 429 and 503 of
 * `rateLimit` and the three factories say their registered type and `violated-policies`, in a
 * problem document (RFC 9457) and, the same facts, in a JSON:API error document.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import { renderError } from '../../src/errors/render.js';
import type { Context } from '../../src/http/types.js';
import {
  abnormalUsageDetectedError,
  gcraDecideAll,
  quotaExceededError,
  RATE_LIMIT_PROBLEM_TYPES,
  type RateLimitOptions,
  type RateLimitStore,
  rateLimit,
  temporaryReducedCapacityError,
} from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';
import { assertJsonApi, assertProblem } from '../support/schemas.js';

const T0 = 1_760_000_000_000;
const REGISTRY = 'https://iana.org/assignments/http-problem-types';
const PROBLEM = 'application/problem+json';
/** A client reading both: successes as JSON:API, errors as problem details. */
const BOTH = 'application/vnd.api+json, application/problem+json';

const silent = { warn: () => {}, error: () => {} };

function appWith(options: RateLimitOptions) {
  const app = createApp({ use: [rateLimit(options)], logger: silent });
  app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
  return app;
}

const get = (app: ReturnType<typeof appWith>, accept = 'application/vnd.api+json') =>
  app.handle(requestView('GET', '/books', { headers: { accept } }));

/** Renders an error as the pipeline does, for the given `Accept`. */
function rendered(error: ApiError, accept: string) {
  const ctx = {
    request: requestView('GET', '/x', { headers: { accept } }),
    logger: silent,
  } as unknown as Context;
  return renderError(error, ctx);
}

describe('the registered problem types (draft-11 section 10.2)', () => {
  it('have the registry URIs and titles', () => {
    expect(RATE_LIMIT_PROBLEM_TYPES).toEqual({
      'quota-exceeded': { uri: `${REGISTRY}#quota-exceeded`, title: 'Quota Exceeded' },
      'temporary-reduced-capacity': {
        uri: `${REGISTRY}#temporary-reduced-capacity`,
        title: 'Temporary Reduced Capacity',
      },
      'abnormal-usage-detected': {
        uri: `${REGISTRY}#abnormal-usage-detected`,
        title: 'Abnormal Usage Detected',
      },
    });
  });
});

describe('when the quota is spent', () => {
  const policies = [
    { name: 'burst', quota: 2, windowSeconds: 60 },
    { name: 'daily', quota: 1000, windowSeconds: 86_400 },
  ];

  it('answers a problem document of type quota-exceeded naming the refusing policy, as section 5.1 shows', async () => {
    const app = appWith({ policies, now: () => T0 });
    await get(app);
    await get(app);
    const refused = await get(app, PROBLEM);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe(PROBLEM);
    assertProblem(refused.json);
    expect(refused.json).toMatchObject({
      type: `${REGISTRY}#quota-exceeded`,
      title: 'Quota Exceeded',
      status: 429,
      code: 'quota-exceeded',
      'violated-policies': ['burst'],
    });
    expect(refused.headers['retry-after']).toBe('30');
  });

  it('says the same in a JSON:API error document: links.type and meta violated-policies', async () => {
    const app = appWith({ policies, now: () => T0 });
    await get(app);
    await get(app);
    const refused = await get(app);
    assertJsonApi(refused.json);
    expect(refused.json).toEqual({
      errors: [
        {
          status: '429',
          code: 'quota-exceeded',
          title: 'Too Many Requests',
          detail: 'Rate limit exceeded: policy "burst" allows 2 requests per 60 s. Retry in 30 s.',
          links: { type: `${REGISTRY}#quota-exceeded` },
          meta: { 'violated-policies': ['burst'] },
        },
      ],
    });
  });

  const quotaArb = fc.integer({ min: 1, max: 4 });
  test.prop([
    fc.array(quotaArb, { minLength: 1, maxLength: 3 }),
    fc.array(fc.nat({ max: 3 }), { maxLength: 12 }),
  ])('violated-policies are exactly the policies that refuse, each decided alone', async (quotas, gaps) => {
    const ps = quotas.map((quota, i) => ({ name: `p${i}`, quota, windowSeconds: 1 + i }));
    let now = T0;
    const app = appWith({ policies: ps, now: () => now });
    // The model: each policy decided on its own, from the same admitted history.
    let states = ps.map(() => undefined) as Parameters<typeof gcraDecideAll>[0];
    for (const gap of [0, ...gaps]) {
      now += gap * 250;
      const alone = ps.map((p, i) => gcraDecideAll([states[i]], now, [p]));
      const refusing = ps.filter((_, i) => !alone[i]!.allowed).map((p) => p.name);
      const response = await get(app, BOTH);
      if (refusing.length === 0) {
        expect(response.status).toBe(200);
        states = alone.map((d) => d.newStates[0]!);
      } else {
        expect(response.status).toBe(429);
        expect((response.json as Record<string, unknown>)['violated-policies']).toEqual(refusing);
      }
    }
  });
});

describe('when the store is down and the limiter fails closed', () => {
  const down: RateLimitStore = { consume: () => Promise.reject(new Error('connection refused')) };

  it('answers 503 of type temporary-reduced-capacity, every policy of the limiter violated', async () => {
    const app = appWith({
      policies: [
        { name: 'burst', quota: 2, windowSeconds: 60 },
        { name: 'daily', quota: 1000, windowSeconds: 86_400 },
      ],
      store: down,
      onStoreError: 'closed',
      timeoutMs: 50,
    });
    const problem = await get(app, PROBLEM);
    expect(problem.status).toBe(503);
    assertProblem(problem.json);
    expect(problem.json).toMatchObject({
      type: `${REGISTRY}#temporary-reduced-capacity`,
      title: 'Temporary Reduced Capacity',
      code: 'rate-limit-unavailable',
      'violated-policies': ['burst', 'daily'],
    });
    expect(JSON.stringify(problem.json)).not.toContain('connection refused');
    const document = await get(app);
    assertJsonApi(document.json);
    expect(document.json).toMatchObject({
      errors: [
        {
          code: 'rate-limit-unavailable',
          links: { type: `${REGISTRY}#temporary-reduced-capacity` },
          meta: { 'violated-policies': ['burst', 'daily'] },
        },
      ],
    });
  });
});

describe('the factories an application throws', () => {
  it.each([
    [quotaExceededError, 429, 'quota-exceeded', 'Quota Exceeded'],
    [temporaryReducedCapacityError, 503, 'temporary-reduced-capacity', 'Temporary Reduced Capacity'],
    [abnormalUsageDetectedError, 429, 'abnormal-usage-detected', 'Abnormal Usage Detected'],
  ] as const)(
    '%o: status, registered type and title, violated-policies, Retry-After',
    (factory, status, name, title) => {
      const error = factory({ violatedPolicies: ['hourly'], retryAfterSeconds: 600 });
      const problem = rendered(error, PROBLEM);
      expect(problem.status).toBe(status);
      expect(problem.headers['retry-after']).toBe('600');
      assertProblem(problem.json);
      expect(problem.json).toMatchObject({
        type: `${REGISTRY}#${name}`,
        title,
        status,
        code: name,
        'violated-policies': ['hourly'],
      });
      const document = rendered(error, 'application/vnd.api+json');
      assertJsonApi(document.json);
      expect(document.json).toMatchObject({
        errors: [
          {
            status: String(status),
            code: name,
            links: { type: `${REGISTRY}#${name}` },
            meta: { 'violated-policies': ['hourly'] },
          },
        ],
      });
    },
  );

  it.each([
    [{ violatedPolicies: [], retryAfterSeconds: 1 }],
    [{ violatedPolicies: ['a'], retryAfterSeconds: -1 }],
    [{ violatedPolicies: ['a'], retryAfterSeconds: 1.5 }],
  ])('refuse a refusal naming no policy or no whole Retry-After with a TypeError (%j)', (refusal) => {
    expect(() => quotaExceededError(refusal)).toThrow(TypeError);
  });

  it.each([
    [quotaExceededError, 429, 'quota-exceeded'],
    [temporaryReducedCapacityError, 503, 'temporary-reduced-capacity'],
    [abnormalUsageDetectedError, 429, 'abnormal-usage-detected'],
  ] as const)(
    "%o: an application's own code replaces the type's name, keeping the type",
    (factory, status, name) => {
      const error = factory({ violatedPolicies: ['monthly'], retryAfterSeconds: 60, code: 'plan-exhausted' });
      const problem = rendered(error, PROBLEM);
      expect(problem.status).toBe(status);
      expect(problem.json).toMatchObject({ type: `${REGISTRY}#${name}`, code: 'plan-exhausted' });
    },
  );

  it.each([
    [quotaExceededError, 'quota-exceeded'],
    [temporaryReducedCapacityError, 'rate-limit-unavailable'],
    [abnormalUsageDetectedError, 'not-found'],
  ] as const)("%o: a catalogue code as the application's own is a TypeError naming it", (factory, code) => {
    const refusal = { violatedPolicies: ['monthly'], retryAfterSeconds: 60 };
    // @ts-expect-error a code of the catalogue is not an application's own (OwnErrorCode)
    expect(() => factory({ ...refusal, code })).toThrow(`code "${code}" is one of the library's codes`);
    const unchecked: string = code;
    expect(() => factory({ ...refusal, code: unchecked })).toThrow(TypeError);
    expect(() => factory({ ...refusal, code: '' })).toThrow(TypeError);
  });

  it('an extension member may not take the name of a problem member', () => {
    expect(
      () =>
        new ApiError(429, {
          problemType: RATE_LIMIT_PROBLEM_TYPES['quota-exceeded'],
          extensions: { status: 1 },
        }),
    ).toThrow(TypeError);
    expect(() => new ApiError(429, { problemType: { uri: 'not a uri', title: 'x' } })).toThrow(TypeError);
  });
});
