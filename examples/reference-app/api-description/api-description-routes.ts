import * as t from 'io-ts';
import type { App } from 'rest-conventions';
import { conditional, digestEtag } from 'rest-conventions/caching';
import { defineRoute } from 'rest-conventions/core';
import { ApiError } from 'rest-conventions/errors';
import { type DocsPage, openApiDocument } from 'rest-conventions/openapi';
import { withSchema } from 'rest-conventions/validation';

/** The media type of an OpenAPI document (OpenAPI 3.1, appendix "Media Type Registrations"). */
export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json';

/** The validators and caching of the reference page and its assets (`docsPage`). */
const PAGE_HEADERS = {
  ETag: { description: 'The entity tag of the page or asset (RFC 9110 section 8.8.3).', required: true },
  'Cache-Control': {
    description: 'The page revalidates; assets keep a day (RFC 9111 section 5.2).',
    required: true,
  },
} as const;

/** The served document's shape, for its own description. */
const OpenApiBody = withSchema(
  new t.Type<Record<string, unknown>>(
    'OpenApiDocument',
    t.UnknownRecord.is,
    t.UnknownRecord.validate,
    t.identity,
  ),
  {
    type: 'object',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  },
);

export interface ApiDescriptionDeps {
  /** The app being described: its routes are read once, at the first request, when all are registered. */
  readonly app: App;
  /** The reference page, or none (then `/docs` is not served). */
  readonly docs: DocsPage | undefined;
}

/** How the reference app describes itself. */
export const API_INFO = {
  title: 'rest-conventions reference app',
  version: '1.0.0',
  description:
    'Books, orders, users and standards, built from the rest-conventions primitives. Tokens: `npm run token -- --sub 1`.',
  license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
  tags: {
    health: 'Liveness and readiness probes for load balancers.',
    books: 'The catalogue: public and cacheable.',
    orders: "Orders of books: the caller's own, with Idempotency-Key and If-Match.",
    users: 'Users in versions 1 and 2, their orders and account type.',
    standards: 'Standards under `/api/v1/`: keyset pages, sparse fieldsets, scopes.',
    'openapi.json': 'This description of the API.',
    docs: 'The API reference page rendered from it.',
  },
} as const;

const publicMinute = { scope: 'public', maxAge: 60 } as const;

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of every declared route, public and cacheable, with
 * an ETag) and `GET /docs` with its assets (the reference page, offline, under its own CSP).
 */
export function apiDescriptionRoutes({ app, docs }: ApiDescriptionDeps) {
  // Described and serialized once (some 350 KB of JSON), at the first request: every answer sends
  // the same bytes under the ETag of those bytes.
  let described: { readonly bytes: Uint8Array; readonly etag: string } | undefined;
  const description = () => {
    if (described === undefined) {
      const text = JSON.stringify(
        openApiDocument(app.routes(), { ...API_INFO, servers: [{ url: '/', 'x-internal': false }] }),
      );
      described = { bytes: new TextEncoder().encode(text), etag: digestEtag([text]) };
    }
    return described;
  };
  const docsRoutes =
    docs === undefined
      ? []
      : [
          defineRoute({
            method: 'GET',
            path: '/docs',
            produces: ['text/html'],
            summary: 'The API reference page',
            responses: {
              200: { description: 'The API reference page (HTML)', headers: PAGE_HEADERS },
              304: { description: 'Not Modified', headers: PAGE_HEADERS },
            },
            handler: (ctx) => docs.respond(undefined, ctx.request.headers.get('if-none-match'))!,
          }),
          defineRoute({
            method: 'GET',
            path: '/docs/{asset}',
            produces: ['text/css', 'text/javascript', 'image/png'],
            summary: "One of the reference page's assets",
            responses: {
              200: { description: "One of the page's assets", headers: PAGE_HEADERS },
              304: { description: 'Not Modified', headers: PAGE_HEADERS },
            },
            handler: (ctx) => {
              const found = docs.respond(ctx.params.asset, ctx.request.headers.get('if-none-match'));
              if (found === undefined) throw new ApiError(404, { detail: 'No such asset.' });
              return found;
            },
          }),
        ];
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      produces: [OPENAPI_MEDIA_TYPE, 'application/json'],
      summary: 'The OpenAPI 3.1 document of this API',
      responses: { 200: { description: 'The OpenAPI 3.1 document of this API', body: OpenApiBody } },
      use: [conditional({ policy: publicMinute, validators: () => ({ etag: description().etag }) })],
      // The route's `produces` names the Content-Type of these bytes, as of a JSON document.
      handler: () => ({ status: 200, headers: {}, raw: description().bytes }),
    }),
    ...docsRoutes,
  ];
}
