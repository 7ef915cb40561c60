import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import { whenSettled } from '../core/maybe-promise.js';
import { bodyBytes } from '../core/response.js';
import { functionOption } from '../errors/option-checks.js';
import { HTTP_TOKEN } from '../http/field-syntax.js';
import { earlyResponse } from '../http/middleware-hooks.js';
import type { ApiResponse, Context, Middleware } from '../http/types.js';
import { bodyEtag } from './body-etag.js';
import { applyCacheHeaders, varyField } from './cache-headers.js';
import { type CachePolicyOptions, cachePolicy } from './cache-policy.js';
import { conditionalContracts } from './conditional-contracts.js';
import { hasIfMatch, preconditionHeaders } from './conditional-request.js';
import {
  checkEtagHeader,
  lastModifiedOf,
  type NormalizedValidators,
  normalize,
  type Validators,
  validatorHeaders,
} from './conditional-validators.js';
import { preconditionFailedError, preconditionRequiredError } from './errors.js';
import { formatHttpDate } from './http-date.js';
import { notModified } from './not-modified.js';
import { decidePreconditions, mayAnswerNotModified, type PreconditionHeaders } from './preconditions.js';

export type { Validators } from './conditional-validators.js';

export interface ConditionalOptions<C extends Context = Context, E = never> {
  /**
   * Load the target entity once per request (a store read). Given, `validators` receives it as its
   * second argument and the handler reads it as `ctx.var.entity`, typed: one load serves
   * both. It runs before any precondition, 428 included, so a throw (a 404 for someone else's
   * record) answers first.
   */
  readonly load?: (ctx: C) => Promise<E> | E;
  /**
   * The current validators of the target resource, read cheaply (a version column, an `updated_at`),
   * or `undefined` when it does not exist. Given: preconditions are evaluated before the handler, so a
   * 412 never runs a write and a 304 never builds a body. Absent: a GET/HEAD/QUERY 200 gets an ETag
   * hashed from its serialized body and preconditions are evaluated after the handler (those methods
   * only). Leave it out on a QUERY route: the results depend on the query content, and validators of
   * the collection alone would give two queries' different results one ETag (RFC 10008 section 2.6).
   */
  readonly validators?: (ctx: C, entity: E) => Promise<Validators | undefined> | Validators | undefined;
  /** The route's Cache-Control policy (see `cachePolicy`), set on responses that have none. */
  readonly policy?: CachePolicyOptions;
  /**
   * Request fields the representation depends on, merged into `Vary`. Default `['Accept']` (the
   * media type is negotiated). `Authorization` is added for authenticated requests.
   */
  readonly vary?: readonly string[];
  /** PUT/PATCH/DELETE without `If-Match` get 428 (RFC 6585). Needs `validators`. Default false. */
  readonly requireIfMatch?: boolean;
  /** Hash-derived ETags are weak (`W/"..."`). Default false (strong). */
  readonly weak?: boolean;
  /** The clock (ms since the epoch). Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * What `conditional` adds to `ctx.var`: with `load`, the `entity` (typed from `load`); with
 * `validators`, `checkedValidators`, the validators the preconditions of this request were checked
 * against (absent when the resource does not exist). A handler performing a conditional write
 * compares-and-sets against them (`UPDATE ... WHERE version = $checked`), so two writers that both
 * passed `If-Match` cannot both succeed; the loser throws `preconditionFailedError()`.
 */
export interface ConditionalAdds {
  readonly checkedValidators?: Validators;
}

const WRITES = new Set(['PUT', 'PATCH', 'DELETE']);

/**
 * Conditional requests and caching headers for one route (RFC 9110 sections 8.8, 13 and 15.4.5;
 * RFC 9111 section 5.2; RFC 6585 section 3).
 *
 * Sets `ETag` and `Last-Modified` on GET/HEAD/QUERY 200 responses, answers 304 (with the RFC 9110 section
 * 15.4.5 headers and no body) or 412 per RFC 9110 section 13.2.2, requires `If-Match` on writes when
 * asked (428), applies the cache policy (never `public` to an authenticated request unless the policy
 * says `publicWhenAuthenticated`) and merges `Vary`. A write handler sets the `ETag` of what it wrote.
 *
 * @example
 * app.route({
 *   method: 'GET', path: '/books/{id}',
 *   use: [conditional({ validators: async (ctx) => books.validators(ctx.params.id),
 *                       policy: { scope: 'public', maxAge: 60 } })],
 *   handler: ...,
 * });
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-13.2.2
 */
export function conditional<C extends Context = Context, E = never>(
  options: ConditionalOptions<C, E> & { readonly load: (ctx: C) => Promise<E> | E },
): Middleware<C, ConditionalAdds & { readonly entity: E }>;
export function conditional<C extends Context = Context>(
  options?: ConditionalOptions<C, undefined>,
): Middleware<C, ConditionalAdds>;
export function conditional<C extends Context = Context, E = unknown>(
  // biome-ignore lint/suspicious/noExplicitAny: the implementation serves both overloads
  options: ConditionalOptions<C, any> = {},
): Middleware<C, ConditionalAdds & { readonly entity: E }> {
  const { load, requireIfMatch = false, weak = false } = options;
  const now = options.now ?? Date.now;
  if (options.validators !== undefined) functionOption('conditional', 'validators', options.validators);
  if (load !== undefined) functionOption('conditional', 'load', load);
  if (load !== undefined && options.validators === undefined) {
    throw new TypeError('conditional: load needs validators, to derive them from the loaded entity');
  }
  const validators = withLoad(load, options.validators);
  if (requireIfMatch && validators === undefined) {
    throw new TypeError('conditional: requireIfMatch needs validators, to check If-Match before the write');
  }
  const policy = options.policy === undefined ? undefined : cachePolicy(options.policy);
  const vary = options.vary ?? ['Accept'];
  for (const name of vary) {
    if (typeof name !== 'string' || !HTTP_TOKEN.test(name)) {
      throw new TypeError(`conditional: bad Vary field name ${String(name)}`);
    }
  }

  // Both Vary lists are built once; authenticated responses also vary on Authorization.
  const varyAnonymous = varyField(vary);
  const varyAuthenticated = varyField([...vary, 'Authorization']);
  const decorate = (response: ApiResponse, ctx: C): ApiResponse =>
    applyCacheHeaders(response, ctx, policy, varyAnonymous, varyAuthenticated);

  if (validators !== undefined) {
    // The validators checked on the way in are this layer's state, handed to its own way out.
    const decideBefore = (ctx: C, headers: PreconditionHeaders, found: Validators | undefined) => {
      const time = now();
      const state = found === undefined ? undefined : normalize(found, time);
      const { method } = ctx.request;
      const decision = decidePreconditions({
        method,
        headers,
        current: { exists: state !== undefined, ...state },
        now: time,
      });
      if (decision.outcome === 'precondition-failed') throw preconditionFailedError(decision.decidedBy);
      if (decision.outcome === 'not-modified') {
        return earlyResponse(decorate(notModified({ headers: validatorHeaders(state) }), ctx));
      }
      if (state !== undefined) ctx.var.checkedValidators = state;
      return state;
    };
    const layer = defineMiddleware<
      C,
      NormalizedValidators | undefined,
      ConditionalAdds & { readonly entity: E }
    >({
      before: function checkPreconditions(ctx) {
        const { method } = ctx.request;
        const headers = preconditionHeaders(ctx.request.headers);
        const required = requireIfMatch && WRITES.has(method) && !hasIfMatch(headers, method);
        // Without `load`, 428 comes first (nothing is read). With it, the entity is loaded first, so
        // a load that refuses (a 404 for someone else's record) answers before any precondition does.
        if (required && load === undefined) throw preconditionRequiredError();
        const found = validators(ctx);
        const decide = (value: Validators | undefined) => {
          if (required) throw preconditionRequiredError();
          return decideBefore(ctx, headers, value);
        };
        return whenSettled(found, decide);
      },
      after: function addValidators(ctx, response, state) {
        checkEtagHeader(response);
        if (state !== undefined && mayAnswerNotModified(ctx.request.method) && response.status === 200) {
          const { headers } = response;
          if (state.etag !== undefined) headers.etag ??= state.etag;
          if (state.lastModified !== undefined)
            headers['last-modified'] ??= formatHttpDate(state.lastModified);
        }
        return decorate(response, ctx);
      },
    });
    return describeLayer(layer, ...conditionalContracts(true, requireIfMatch, policy !== undefined));
  }

  const layer = defineMiddleware<C, undefined, ConditionalAdds & { readonly entity: E }>({
    after: function checkPreconditionsAfter(ctx, response) {
      checkEtagHeader(response);
      const { method } = ctx.request;
      if (!mayAnswerNotModified(method) || response.status !== 200) return decorate(response, ctx);
      const time = now();
      const { headers } = response;
      if (headers.etag === undefined) {
        const bytes = bodyBytes(response);
        if (bytes !== undefined) {
          headers.etag = bodyEtag(bytes, { weak, contentEncoding: headers['content-encoding'] });
        }
      }
      const decision = decidePreconditions({
        method,
        headers: preconditionHeaders(ctx.request.headers),
        current: { exists: true, etag: headers.etag, lastModified: lastModifiedOf(headers, time) },
        now: time,
      });
      if (decision.outcome === 'precondition-failed') throw preconditionFailedError(decision.decidedBy);
      return decorate(decision.outcome === 'not-modified' ? notModified(response) : response, ctx);
    },
  });
  return describeLayer(layer, ...conditionalContracts(false, false, policy !== undefined));
}

/** Validators of a request, loading the entity first (once) when `load` is given. */
function withLoad<C extends Context, E>(
  load: ((ctx: C) => Promise<E> | E) | undefined,
  validators: ConditionalOptions<C, E>['validators'],
): ((ctx: C) => Promise<Validators | undefined> | Validators | undefined) | undefined {
  if (validators === undefined) return undefined;
  if (load === undefined)
    return validators as (ctx: C) => Promise<Validators | undefined> | Validators | undefined;
  const keep = (ctx: C, entity: E) => {
    ctx.var.entity = entity;
    return validators(ctx, entity);
  };
  return (ctx) => whenSettled(load(ctx), (e) => keep(ctx, e));
}
