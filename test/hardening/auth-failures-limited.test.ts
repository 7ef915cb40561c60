import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { send } from '../core/send.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/** The `r` (remaining) of the first RateLimit member, or undefined when the field is absent. */
function remaining(headers: Readonly<Record<string, string>>): number | undefined {
  const field = headers.ratelimit;
  return field === undefined ? undefined : (Object.fromEntries(parseList(field)[0]![1]).r as number);
}

describe('bad credentials are rate limited by address (issue 18, item 3)', () => {
  for (const [name, authorization] of [
    ['a bearer token with a bad signature', 'Bearer a.b.N'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a malformed bearer credential', 'Bearer ###'],
  ] as const) {
    it(`answers 429 with RateLimit headers after the 5th request with ${name}`, async () => {
      const { app } = referenceApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '60' });
      const statuses: number[] = [];
      const left: Array<number | undefined> = [];
      for (let i = 0; i < 40; i++) {
        const response = await send(app, 'GET', '/books/1', { headers: { authorization } });
        statuses.push(response.status);
        left.push(remaining(response.headers));
      }
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(left.slice(0, 5)).toEqual([4, 3, 2, 1, 0]);
      expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
      const refused = await send(app, 'GET', '/books/1', { headers: { authorization } });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers['ratelimit-policy']).toBeDefined();
    });
  }

  it('counts failures against the address only: another address and a valid token are not refused', async () => {
    const { app } = referenceApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '60' });
    for (let i = 0; i < 6; i++) {
      await send(app, 'GET', '/books/1', {
        headers: { authorization: 'Bearer a.b.N' },
        remoteAddress: '192.0.2.1',
      });
    }
    const sameAddress = await send(app, 'GET', '/books/1', { remoteAddress: '192.0.2.1' });
    expect(sameAddress.status).toBe(429);
    const otherAddress = await send(app, 'GET', '/books/1', { remoteAddress: '192.0.2.2' });
    expect(otherAddress.status).toBe(200);
    // An authenticated caller is keyed by user, whatever its address did.
    const user = await send(app, 'GET', '/books/1', {
      headers: { authorization: await bearer('1') },
      remoteAddress: '192.0.2.1',
    });
    expect(user.status).toBe(200);
    expect(remaining(user.headers)).toBe(4);
  });
});

describe('authenticate({ failureLimit })', () => {
  it('throws a TypeError naming the option when it is not a middleware', async () => {
    const { authenticate, hs256Verifier } = await import('../../src/auth/index.js');
    const verifier = hs256Verifier({ secret: 'x'.repeat(32) });
    expect(() => authenticate({ verifier, failureLimit: 5 as never })).toThrow(/failureLimit/);
  });
});

describe('what authenticate({ failureLimit }) declares (issue 24: every sent response is declared)', () => {
  it('the limiter’s 429 and headers on the operations the app’s own limiter skips', async () => {
    const { createApp, except, json } = await import('../../src/index.js');
    const { authenticate, hs256Verifier } = await import('../../src/auth/index.js');
    const { rateLimit } = await import('../../src/ratelimit/index.js');
    const { openApiDocument } = await import('../../src/openapi/index.js');
    const { conformanceChecker } = await import('../../src/testing/index.js');
    const limiter = rateLimit({ policies: [{ name: 'default', quota: 1, windowSeconds: 60 }] });
    const verifier = hs256Verifier({ secret: 'x'.repeat(32) });
    const app = createApp({
      use: [authenticate({ verifier, failureLimit: limiter }), except(['/health/live'], limiter)],
    });
    app.route({ method: 'GET', path: '/health/live', handler: () => json(200, { meta: { up: true } }) });
    const document = openApiDocument(app.routes(), { title: 'probe', version: '1' });
    const probe = document.paths!['/health/live']!.get!;
    expect(Object.keys(probe.responses)).toEqual(expect.arrayContaining(['400', '401', '429']));
    const conforms = conformanceChecker(document);
    const statuses: number[] = [];
    for (const authorization of ['Bearer a.b.c', 'Bearer a.b.c', 'Basic eDp5']) {
      const response = await send(app, 'GET', '/health/live', { headers: { authorization } });
      statuses.push(response.status);
      const exchange = { method: 'GET', path: '/health/live', ...response, body: response.text };
      expect(conforms(exchange).problems).toEqual([]);
      // Every header sent is one the document declares on that response (or framing).
      const declared = Object.keys(probe.responses[String(response.status)]!.headers ?? {}).map((h) =>
        h.toLowerCase(),
      );
      for (const name of Object.keys(response.headers).filter((h) => /^(ratelimit|retry-after)/.test(h)))
        expect(declared).toContain(name);
    }
    expect(statuses).toEqual([401, 429, 429]);
  });
});
