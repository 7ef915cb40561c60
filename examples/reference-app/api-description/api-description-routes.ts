import * as t from 'io-ts';
import type { App } from 'rest-conventions';
import { conditional, digestEtag } from 'rest-conventions/caching';
import { defineRoute, json } from 'rest-conventions/core';
import { ApiError } from 'rest-conventions/errors';
import { type DocsPage, type OpenApiDocument, openApiDocument } from 'rest-conventions/openapi';
import { withSchema } from 'rest-conventions/validation';

/** The media type of an OpenAPI document (OpenAPI 3.1, appendix "Media Type Registrations"). */
export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json';

/** The served document's shape, for its own description. */
const OpenApiBody = withSchema(
  new t.Type<Record<string, unknown>>(
    'OpenApiDocument',
    t.UnknownRecord.is,
    t.UnknownRecord.validate,
    t.identity,
  ),
  { type: 'object', required: ['openapi', 'info', 'paths'] },
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
} as const;

const publicMinute = { scope: 'public', maxAge: 60 } as const;

/**
 * `GET /openapi.json` (the OpenAPI 3.1 document of every declared route, public and cacheable, with
 * an ETag) and `GET /docs` with its assets (the reference page, offline, under its own CSP).
 */
export function apiDescriptionRoutes({ app, docs }: ApiDescriptionDeps) {
  let described: { readonly document: OpenApiDocument; readonly etag: string } | undefined;
  const description = () => {
    if (described === undefined) {
      const document = openApiDocument(app.routes(), { ...API_INFO, servers: [{ url: '/' }] });
      described = { document, etag: digestEtag([JSON.stringify(document)]) };
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
            responses: {
              200: { description: 'The API reference page (HTML)' },
              304: { description: 'Not Modified' },
            },
            handler: (ctx) => docs.respond(undefined, ctx.request.headers.get('if-none-match'))!,
          }),
          defineRoute({
            method: 'GET',
            path: '/docs/{asset}',
            produces: ['text/css', 'text/javascript', 'image/png'],
            responses: {
              200: { description: "One of the page's assets" },
              304: { description: 'Not Modified' },
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
      responses: { 200: { description: 'The OpenAPI 3.1 document of this API', body: OpenApiBody } },
      use: [conditional({ policy: publicMinute, validators: () => ({ etag: description().etag }) })],
      handler: () => json(200, description().document),
    }),
    ...docsRoutes,
  ];
}
