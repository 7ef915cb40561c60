import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { defineMiddleware } from '../../src/core/compose.js';
import { created, json } from '../../src/core/response.js';
import { cors } from '../../src/cors/index.js';
import type { CorsOptions } from '../../src/cors/policy.js';
import type { Middleware } from '../../src/http/types.js';
import { recordingLogger, send } from '../core/send.js';
import {
  type BrowserRequest,
  corsCheck,
  needsPreflight,
  preflightHeaders,
  preflightPasses,
  readableHeaders,
  unsafeHeaderNames,
} from './fetch-model.js';

/**
 * The primitive through an app, against the model of what a browser does (fetch-model.ts): for any
 * policy, page origin, method, path and headers a script sets, the browser lets the script read the
 * answer exactly when an independent oracle says the API allows it, and then reads the conventions'
 * headers.
 */

const ORIGINS = ['https://app.example', 'http://localhost:5173', 'https://other.example:8443'] as const;
/** The methods each path's routes take (the route table, written out again). */
const ROUTE_METHODS: Readonly<Record<string, readonly string[]>> = {
  '/items': ['GET', 'HEAD', 'POST'],
  '/items/1': ['GET', 'HEAD', 'PATCH'],
  '/nope': [],
};
/** The request headers the policy lets a script send, written out again (docs/cors.md). */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'idempotency-key',
  'x-request-id',
  'accept',
  'accept-language',
  'content-language',
];

function appWith(options: CorsOptions) {
  return createApp({ logger: recordingLogger(), use: [cors(options)] })
    .route({ method: 'GET', path: '/items', handler: () => json(200, { data: [] }) })
    .route({
      method: 'POST',
      path: '/items',
      handler: () => {
        const response = created('/items/1', { data: { type: 'items', id: '1' } });
        response.headers.etag = '"v1"';
        return response;
      },
    })
    .route({
      method: 'GET',
      path: '/items/{id}',
      handler: () => ({ status: 200, headers: { etag: '"v1"' }, json: { data: { type: 'items', id: '1' } } }),
    })
    .route({
      method: 'PATCH',
      path: '/items/{id}',
      handler: () => json(200, { data: { type: 'items', id: '1' } }),
    });
}

const policy = fc.oneof(
  fc.record({
    origins: fc.subarray([...ORIGINS]),
    credentials: fc.boolean(),
    how: fc.constantFrom('list', 'function'),
  }),
  fc.constant({ origins: '*' as const, credentials: false, how: 'any' as const }),
);

const scriptRequest = fc.record({
  origin: fc.constantFrom(...ORIGINS, 'https://evil.example', 'null'),
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'),
  path: fc.constantFrom('/items', '/items/1', '/nope'),
  credentials: fc.boolean(),
  headers: fc.record(
    {
      authorization: fc.constant('Bearer t'),
      'content-type': fc.constantFrom('application/json', 'application/vnd.api+json', 'text/plain'),
      'if-match': fc.constant('"v1"'),
      'if-none-match': fc.constant('"v1"'),
      'idempotency-key': fc.uuid(),
      accept: fc.constantFrom('application/vnd.api+json', 'application/json'),
      'x-custom': fc.constant('1'),
    },
    { requiredKeys: [] },
  ),
});

describe('cors() against a model of the Fetch standard', () => {
  it('lets a script read the answer exactly when the origin, method and headers are allowed (property)', async () => {
    await fc.assert(
      fc.asyncProperty(policy, scriptRequest, async (p, r) => {
        const options: CorsOptions = {
          origins:
            p.how === 'any'
              ? '*'
              : p.how === 'function'
                ? (o) => (p.origins as string[]).includes(o)
                : p.origins,
          credentials: p.credentials,
        };
        const app = appWith(options);
        const browser: BrowserRequest = {
          origin: r.origin,
          method: r.method,
          headers: r.headers,
          credentials: r.credentials,
        };
        // The oracle: what the API allows, from the policy and the route table alone.
        const originAllowed = p.how === 'any' || (p.origins as string[]).includes(r.origin);
        const credentialsAllowed = !r.credentials || p.credentials;
        const known = ROUTE_METHODS[r.path]!.length > 0;
        const methodAllowed =
          ROUTE_METHODS[r.path]!.includes(r.method) || ['GET', 'HEAD', 'POST'].includes(r.method);
        const headersAllowed = unsafeHeaderNames(r.headers).every((name) => ALLOWED_HEADERS.includes(name));
        const expected =
          originAllowed &&
          credentialsAllowed &&
          (!needsPreflight(browser) || (known && methodAllowed && headersAllowed));

        // The browser: the preflight first when the request needs one, then the request.
        let readable = false;
        let sent = true;
        if (needsPreflight(browser)) {
          const preflight = await send(app, 'OPTIONS', r.path, { headers: preflightHeaders(browser) });
          sent = preflightPasses(browser, preflight.status, preflight.headers);
          expect(preflight.headers['ratelimit']).toBeUndefined();
        }
        if (sent) {
          const answer = await send(app, r.method, r.path, { headers: { ...r.headers, origin: r.origin } });
          readable = corsCheck(browser, answer.headers);
          // Every answer says what it depends on, and `*` never goes with credentials.
          if (p.how !== 'any') expect(answer.headers.vary).toMatch(/(^|, )Origin(,|$)/);
          if (answer.headers['access-control-allow-credentials'] !== undefined)
            expect(answer.headers['access-control-allow-origin']).not.toBe('*');
          if (readable) {
            const names = readableHeaders(browser, answer.headers);
            for (const name of ['etag', 'location', 'allow', 'x-request-id'])
              if (name in answer.headers) expect(names.has(name), name).toBe(true);
          }
        }
        expect(readable).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('never names an origin it was not given, whatever the request says (property)', async () => {
    const app = appWith({ origins: ['https://app.example'] });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.webUrl().map((u) => new URL(u).origin),
        ),
        fc.constantFrom('GET', 'OPTIONS', 'POST'),
        async (origin, method) => {
          const answer = await send(app, method, '/items', {
            headers: { origin, 'access-control-request-method': 'PATCH' },
          });
          const allowOrigin = answer.headers['access-control-allow-origin'];
          expect(allowOrigin === undefined || allowOrigin === 'https://app.example').toBe(true);
          if (origin !== 'https://app.example') expect(allowOrigin).toBeUndefined();
        },
      ),
    );
  });

  it('adds Origin to the Vary of an answer to a request without Origin exactly when it lacks it (property)', async () => {
    // Model (RFC 9110 section 12.5.5): a Vary value is a list of field names or `*`; `Origin` is added
    // once, after what is there, unless the list names it (in any case) or is `*`. The app around
    // both layers adds its own members the same way.
    const member = fc.constantFrom(
      'Accept',
      'origin',
      'Origin',
      'ORIGIN',
      'Origin-Agent',
      'X-Origin',
      '*',
      '',
    );
    const vary = fc.option(
      fc
        .array(fc.tuple(member, fc.constantFrom('', ' ', '\t')), { maxLength: 4 })
        .map((members) => members.map(([name, space]) => `${space}${name}${space}`).join(',')),
      { nil: undefined },
    );
    const varyOnOrigin = defineMiddleware({
      after: (_ctx, response) => {
        const current = response.headers.vary;
        const names = (current ?? '').split(',').map((m) => m.trim().toLowerCase());
        if (current === undefined || current === '') response.headers.vary = 'Origin';
        else if (current.trim() !== '*' && !names.includes('origin'))
          response.headers.vary = `${current}, Origin`;
        return response;
      },
    });
    const varyHeader = (current: string | undefined): Record<string, string> =>
      current === undefined ? {} : { vary: current };
    const appWithLayer = (layer: Middleware, current: string | undefined) =>
      createApp({ use: [layer] }).route({
        method: 'GET',
        path: '/v',
        handler: () => ({
          status: 200,
          headers: varyHeader(current),
          json: { meta: {} },
        }),
      });
    await fc.assert(
      fc.asyncProperty(vary, async (current) => {
        const answer = await send(appWithLayer(cors({ origins: [...ORIGINS] }), current), 'GET', '/v');
        const model = await send(appWithLayer(varyOnOrigin, current), 'GET', '/v');
        expect(answer.headers.vary).toBe(model.headers.vary);
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      }),
    );
  });
});
