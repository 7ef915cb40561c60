/**
 * What a declared QUERY route adds to its pipeline (RFC 10008): `Accept-Query` on every answer of the
 * route (section 3), so a client learns the query formats from any response, a 415 included; and the
 * check of the request's `Content-Type` before its content is read (section 2.1).
 */

import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import { codedError } from '../errors/coded-error.js';
import { acceptQueryField, decideQueryContent } from '../http/accept-query.js';
import { JSON_MEDIA } from '../http/media-types.js';
import type { Context, Middleware } from '../http/types.js';

/**
 * The query content a declared QUERY route takes: the route's body codec over a JSON value. A JSON:API
 * document is a resource's representation, not a query, so it is not offered.
 */
const QUERY_CONTENT_TYPES: readonly string[] = Object.freeze([JSON_MEDIA]);

/** The `Accept-Query` value of a declared QUERY route. */
const QUERY_ACCEPT_FIELD = acceptQueryField(QUERY_CONTENT_TYPES);

/** The route's outermost layer: `Accept-Query` on whatever the route answers, errors and 304 included. */
export function acceptQueryLayer(): Middleware {
  const layer = defineMiddleware({
    after: function addAcceptQuery(_ctx, response) {
      response.headers['accept-query'] ??= QUERY_ACCEPT_FIELD;
      return response;
    },
  });
  const header = {
    description: `The media types this resource takes as query content, a Structured Field List (RFC 10008 section 3): \`${QUERY_ACCEPT_FIELD}\`.`,
  };
  // On every answer of the route; the app's own refusals (401, 429) come before it, so not on those.
  return describeLayer(layer, {
    allHeaders: { 'Accept-Query': header },
    successHeaders: { 'Accept-Query': { ...header, required: true } },
  });
}

/** Refuses a QUERY whose `Content-Type` is missing (400) or not taken here (415), before reading it. */
export function checkQueryContent(ctx: Context): void {
  const decision = decideQueryContent(ctx.request.headers.get('content-type'), QUERY_CONTENT_TYPES);
  if (decision.outcome === 'missing') {
    throw codedError(400, 'missing-content-type', {
      detail: `A QUERY request names the media type of its content in Content-Type (RFC 10008 section 2.1): ${QUERY_CONTENT_TYPES.join(', ')}.`,
      source: { header: 'Content-Type' },
      headers: { 'accept-query': QUERY_ACCEPT_FIELD },
    });
  }
  if (decision.outcome === 'unsupported') {
    throw codedError(415, 'unsupported-media-type', {
      detail: `This resource takes a query as ${QUERY_CONTENT_TYPES.join(', ')} (RFC 10008 section 2.1).`,
      source: { header: 'Content-Type' },
      headers: { 'accept-query': QUERY_ACCEPT_FIELD },
    });
  }
}
