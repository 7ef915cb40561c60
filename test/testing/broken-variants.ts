/**
 * Deliberately broken variants of the reference app, each breaking one convention by wrapping the
 * app's fetch handler (the app itself is untouched). The kit must catch each with the matching
 * property, and only that one.
 */
import { toFetchHandler } from '../../src/adapters/fetch.js';
import type { PropertyId } from '../../src/testing/index.js';
import { bearer, referenceApp } from '../support/reference-app.js';

type Handler = (request: Request) => Promise<Response>;

export interface BrokenVariant {
  readonly name: string;
  /** The id of the property that must fail, and be the only one. */
  readonly property: PropertyId;
  /** What the report must say is wrong, where one property sees several violations. */
  readonly violation?: RegExp;
  readonly handler: () => Handler;
}

/** A fresh reference app's handler (one per variant, so no two share state). */
function app(): Handler {
  const handler = toFetchHandler(referenceApp().app);
  return async (request) => handler(request);
}

function withHeaders(
  response: Response,
  edit: (headers: Headers) => void,
  status = response.status,
): Response {
  const headers = new Headers(response.headers);
  edit(headers);
  return new Response(status === 304 || status === 204 ? null : response.body, { status, headers });
}

export function withRequest(request: Request, edit: (headers: Headers) => void): Request {
  const headers = new Headers(request.headers);
  edit(headers);
  return new Request(request, { headers });
}

const path = (request: Request) => new URL(request.url).pathname;

export const BROKEN_VARIANTS: readonly BrokenVariant[] = [
  {
    name: 'a nested route without its ownership check (it trusts the user in the path)',
    property: 'ownership',
    handler: () => {
      const inner = app();
      return async (request) => {
        const nested = /^\/users\/([^/]+)\/orders\/[^/]+$/.exec(path(request));
        if (request.method !== 'GET' || nested === null) return inner(request);
        const owner = await bearer(decodeURIComponent(nested[1]!));
        return inner(withRequest(request, (h) => h.set('authorization', owner)));
      };
    },
  },
  {
    name: 'an ETag that does not change on update',
    property: 'validators',
    handler: () => {
      const inner = app();
      // Per order: the first tag ever sent (always shown) and the current one (what the app checks).
      const tags = new Map<string, { first: string; current: string }>();
      return async (request) => {
        const at = path(request);
        if (!/^\/orders\/[^/]+$/.test(at)) return inner(request);
        const known = tags.get(at);
        const asked = known
          ? withRequest(request, (h) => {
              for (const name of ['if-match', 'if-none-match'])
                if (h.get(name) === known.first) h.set(name, known.current);
            })
          : request;
        const response = await inner(asked);
        const etag = response.headers.get('etag');
        if (etag === null) return response;
        const entry = tags.get(at) ?? { first: etag, current: etag };
        entry.current = etag;
        tags.set(at, entry);
        return withHeaders(response, (h) => h.set('etag', entry.first));
      };
    },
  },
  {
    name: 'an Idempotency-Key that is not honoured (a replay creates a second order)',
    property: 'idempotency',
    handler: () => {
      const inner = app();
      return (request) =>
        inner(
          request.method === 'POST' && request.headers.has('idempotency-key')
            ? withRequest(request, (h) => h.set('idempotency-key', crypto.randomUUID()))
            : request,
        );
    },
  },
  {
    name: 'a 500 that leaks a stack trace (for a user that is not there)',
    property: 'documents',
    handler: () => {
      const inner = app();
      return async (request) => {
        const response = await inner(request);
        const url = new URL(request.url);
        // Only for requests that follow the document (no query: the kit breaks a GET in its query),
        // so that it is a server fault and not a refusal of bad input.
        const faulty =
          request.method === 'GET' &&
          /^\/users\//.test(url.pathname) &&
          url.search === '' &&
          response.status === 404 &&
          request.headers.get('authorization')?.startsWith('Bearer ey') === true;
        if (!faulty) return response;
        const body = JSON.stringify({
          errors: [
            {
              status: '500',
              title: 'Internal Server Error',
              detail: 'TypeError: book is undefined\n    at bookHandler (/srv/app/books/routes.js:42:13)',
            },
          ],
        });
        return new Response(body, { status: 500, headers: response.headers });
      };
    },
  },
  {
    name: 'an unknown version silently served as the default',
    property: 'versions',
    handler: () => {
      const inner = app();
      return (request) => {
        const accept = request.headers.get('accept') ?? '';
        const version = /version="?(\w+)/.exec(accept)?.[1];
        if (version === undefined || version === '1' || version === '2') return inner(request);
        return inner(withRequest(request, (h) => h.set('accept', 'application/vnd.api+json')));
      };
    },
  },
  {
    name: 'a 304 without X-Frame-Options',
    property: 'validators',
    handler: () => {
      const inner = app();
      return async (request) => {
        const response = await inner(request);
        return response.status === 304 ? withHeaders(response, (h) => h.delete('x-frame-options')) : response;
      };
    },
  },
  {
    name: 'a 429 without Retry-After (the fifth identical request in a row)',
    property: 'rate-limits',
    handler: () => {
      const inner = app();
      let last = '';
      let streak = 0;
      return async (request) => {
        const key = `${request.method} ${request.url} ${request.headers.get('authorization')}`;
        streak = key === last ? streak + 1 : 1;
        last = key;
        const response = await inner(request);
        if (request.method !== 'GET' || streak < 5) return response;
        const body = JSON.stringify({ errors: [{ status: '429', title: 'Too Many Requests' }] });
        return new Response(body, {
          status: 429,
          headers: withHeaders(response, (h) => {
            h.delete('etag');
            h.delete('last-modified');
            h.set('content-type', 'application/vnd.api+json');
            h.set('cache-control', 'no-store');
            // The body is another one now: its length is not the app's.
            h.delete('content-length');
          }).headers,
        });
      };
    },
  },
  {
    name: 'a stale If-Match answered 200 (the write goes through whatever the client last saw)',
    property: 'validators',
    handler: () => {
      const inner = app();
      return async (request) => {
        if (request.method !== 'PATCH' || !request.headers.has('if-match')) return inner(request);
        const current = await inner(
          new Request(request.url, {
            headers: { authorization: request.headers.get('authorization') ?? '' },
          }),
        );
        const etag = current.headers.get('etag');
        return inner(etag === null ? request : withRequest(request, (h) => h.set('if-match', etag)));
      };
    },
  },
  {
    name: 'a deprecated operation without its Deprecation and Sunset headers',
    property: 'deprecation',
    handler: () => {
      const inner = app();
      return async (request) =>
        withHeaders(await inner(request), (h) => {
          h.delete('deprecation');
          h.delete('sunset');
        });
    },
  },
  {
    name: 'a QUERY that takes any media type as JSON (200 where RFC 10008 asks for 415)',
    property: 'query',
    violation: /a QUERY in a media type it does not take \(text\/plain\) did not get 415/,
    handler: () => {
      const inner = app();
      return (request) =>
        inner(
          request.method === 'QUERY' && !/json/.test(request.headers.get('content-type') ?? '')
            ? withRequest(request, (h) => h.set('content-type', 'application/json'))
            : request,
        );
    },
  },
  {
    name: 'a QUERY answered without Accept-Query',
    property: 'query',
    violation: /a QUERY answered without Accept-Query/,
    handler: () => {
      const inner = app();
      return async (request) => {
        const response = await inner(request);
        return request.method === 'QUERY' ? withHeaders(response, (h) => h.delete('accept-query')) : response;
      };
    },
  },
  {
    name: 'a server that ignores JSON:API extensions (ext dropped from Accept and Content-Type)',
    property: 'jsonapi-parameters',
    violation: /an Accept naming only unsupported JSON:API extensions got 200, not 406/,
    handler: () => {
      const inner = app();
      const withoutExt = (value: string) => value.replace(/;\s*ext=("(?:[^"\\]|\\.)*"|[^;,]*)/gi, '');
      return (request) =>
        inner(
          withRequest(request, (h) => {
            for (const name of ['accept', 'content-type']) {
              const value = h.get(name);
              if (value !== null) h.set(name, withoutExt(value));
            }
          }),
        );
    },
  },
  {
    name: 'a RateLimit field in the form of an older draft (limit=, remaining=, reset=)',
    property: 'rate-limits',
    violation: /RateLimit is not a Structured Field List/,
    handler: () => {
      const inner = app();
      return async (request) => {
        const response = await inner(request);
        return response.headers.has('ratelimit')
          ? withHeaders(response, (h) => h.set('ratelimit', 'limit=1000000, remaining=999999, reset=1'))
          : response;
      };
    },
  },
  {
    name: 'a payment link that points at a path that does not exist',
    property: 'links',
    violation: /links\.payment leads to POST \/orders\/[^/]+\/paiements, no operation of the document/,
    handler: () => {
      const inner = app();
      return async (request) => {
        const response = await inner(request);
        if (request.method !== 'POST' || path(request) !== '/orders' || response.status !== 201)
          return response;
        const text = (await response.text()).replace(/(\/orders\/[^/"]+)\/payments/, '$1/paiements');
        const headers = new Headers(response.headers);
        headers.delete('content-length');
        return new Response(text, { status: response.status, headers });
      };
    },
  },
];
