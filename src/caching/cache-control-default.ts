import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import type { Middleware } from '../http/types.js';

export interface CacheControlDefaultOptions {
  /** The `Cache-Control` value for responses that have none. Default `no-store`. */
  readonly value?: string;
}

const FIELD_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Guarantees that every response says whether it may be cached (RFC 9111 section
 * 5.2): a response that reaches it without `Cache-Control` gets `no-store`. Routes opt in to caching
 * with `conditional({ policy })`; error responses already carry `no-store`. Put it near the front of
 * `createApp({ use })` so it sees every response, including 404/405/OPTIONS.
 *
 * @example createApp({ use: [securityHeaders(), cacheControlDefault()] })
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-5.2.2.5
 */
export function cacheControlDefault(options: CacheControlDefaultOptions = {}): Middleware {
  const value = options.value ?? 'no-store';
  if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
    throw new TypeError(`cacheControlDefault: not a field value: ${JSON.stringify(value)}`);
  }
  const layer = defineMiddleware({
    after: function addDefaultCacheControl(_ctx, response) {
      response.headers['cache-control'] ??= value;
      return response;
    },
  });
  return describeLayer(layer, {
    allHeaders: {
      'Cache-Control': {
        description: 'Whether and how the response may be cached (RFC 9111 section 5.2).',
        required: true,
      },
    },
  });
}
