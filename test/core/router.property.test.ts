import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { recordingLogger, send } from './send.js';

const NOUNS = ['books', 'authors', 'orders', 'users', 'reviews'] as const;

/** A pattern as segments: a noun, or `null` for a parameter (named by its position, so names never clash). */
const patternSegments = fc.array(fc.oneof(fc.constantFrom(...NOUNS), fc.constant(null)), {
  minLength: 1,
  maxLength: 4,
});
const toPattern = (segments: readonly (string | null)[]) =>
  `/${segments.map((s, i) => s ?? `{p${i}}`).join('/')}`;

/** A parameter value that is never a static segment, so the route reached is the one the path was made from. */
const paramValue = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
  .filter((v) => !NOUNS.includes(v as never));

/** A concrete path for a pattern, with the raw values of its parameters. */
function instance(segments: readonly (string | null)[]) {
  return fc.tuple(...segments.map((s) => (s === null ? paramValue : fc.constant(s)))).map((values) => ({
    path: `/${values.map((v, i) => (segments[i] === null ? encodeURIComponent(v) : v)).join('/')}`,
    params: Object.fromEntries(values.flatMap((v, i) => (segments[i] === null ? [[`p${i}`, v]] : []))),
  }));
}

function appFor(patterns: readonly string[], method = 'GET') {
  const app = createApp({ logger: recordingLogger() });
  for (const pattern of new Set(patterns)) {
    app.route({
      method,
      path: pattern,
      handler: (ctx) => json(200, { meta: { pattern: ctx.routePattern, params: { ...ctx.params } } }),
    });
  }
  return app;
}

/** Several registered patterns and, for one of them, a concrete path. */
const routeSet = fc.array(patternSegments, { minLength: 1, maxLength: 6 }).chain((all) =>
  fc.nat({ max: all.length - 1 }).chain((pick) =>
    instance(all[pick]!).map((target) => ({
      patterns: all.map(toPattern),
      pattern: toPattern(all[pick]!),
      target,
    })),
  ),
);

describe('router properties', () => {
  it('reaches the same route with and without a trailing slash', async () => {
    await fc.assert(
      fc.asyncProperty(routeSet, fc.boolean(), async ({ patterns, target }, registerWithSlash) => {
        const app = appFor(registerWithSlash ? patterns.map((p) => `${p}/`) : patterns);
        const plain = await send(app, 'GET', target.path);
        const slashed = await send(app, 'GET', `${target.path}/`);
        expect(plain.status).toBe(200);
        expect(slashed.status).toBe(200);
        expect(slashed.body).toEqual(plain.body);
      }),
    );
  });

  it('reaches the route the path was made from, with its parameters decoded', async () => {
    await fc.assert(
      fc.asyncProperty(routeSet, async ({ patterns, pattern, target }) => {
        const res = await send(appFor(patterns), 'GET', target.path);
        expect(res.body.meta.pattern).toBe(pattern);
        expect(res.body.meta.params).toEqual(target.params);
      }),
    );
  });

  it('prefers a fully static route over any parameter route matching the same path', async () => {
    const staticOnly = fc.array(fc.constantFrom(...NOUNS), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(staticOnly, fc.array(patternSegments, { maxLength: 6 }), async (target, others) => {
        const pattern = toPattern(target);
        // Parameter versions of the static route: each static segment may be replaced by a parameter.
        const rivals = others.map((o) => toPattern(target.map((s, i) => (o[i] === null ? null : s))));
        const res = await send(appFor([...rivals, pattern]), 'GET', pattern);
        expect(res.body.meta.pattern).toBe(pattern);
      }),
    );
  });

  it('answers 404 for a path no route matches and 405 with Allow for another method', async () => {
    const method = fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE');
    await fc.assert(
      fc.asyncProperty(routeSet, method, async ({ patterns, target }, other) => {
        const app = appFor(patterns);
        const wrongMethod = await send(app, other, target.path);
        expect(wrongMethod.status).toBe(405);
        expect(wrongMethod.headers.allow).toBe('GET, HEAD, OPTIONS');
        const unknown = await send(app, 'GET', `${target.path}/nowhere-else/at-all/really/not/here`);
        expect(unknown.status).toBe(404);
      }),
    );
  });
});
