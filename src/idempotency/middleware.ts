import { readBody } from '../core/body.js';
import { describeLayer } from '../core/contract.js';
import { isPromise } from '../core/maybe-promise.js';
import { canonicalPath } from '../http/canonical-path.js';
import { nonIdempotentMethods } from '../http/methods.js';
import type { Context, Middleware } from '../http/types.js';
import { peekJsonBody } from '../validation/json-text.js';
import { claimLifecycle } from './claim-lifecycle.js';
import { replayOf, scopeKey } from './decision.js';
import {
  inProgressError,
  invalidKeyError,
  keyReusedError,
  missingKeyError,
  quotaFullError,
  storeFullError,
} from './errors.js';
import { fingerprintOf } from './fingerprint.js';
import { MAX_KEY_LENGTH, parseIdempotencyKey } from './key.js';
import { type IdempotencyOptions, readOptions } from './options.js';
import type { PooledConnection } from './stores/sql-connection.js';

export type { IdempotencyOptions } from './options.js';

/**
 * What {@link idempotency} adds to `ctx.var`: with a `transactional` PostgreSQL store and a keyed
 * request, the transaction client the handler writes with, so its writes and the idempotency record
 * commit together (absent otherwise: write with the pool).
 *
 * @example
 * const db = ctx.var.idempotencyTransaction ?? pool;
 * await db.query('INSERT INTO orders ...');
 */
export interface IdempotencyAdds {
  readonly idempotencyTransaction?: PooledConnection;
}

/** The methods a retry may repeat (POST, PATCH): those the key guards. */
const GUARDED_METHODS = new Set(nonIdempotentMethods());

/**
 * Make POST and PATCH safe to retry with an `Idempotency-Key`
 * (draft-ietf-httpapi-idempotency-key-header; Stripe's semantics). Other methods pass through.
 *
 * The key is scoped by the principal's `sub` (put this after authentication). The first request
 * claims the key and runs the handler once; its status, allow-listed headers and body bytes are
 * stored, and a retry gets them replayed byte for byte with `Idempotent-Replayed: true`. The same key
 * with another method, resource (the path in its route's canonical form: `/orders/` is `/orders`),
 * query, body media type or body: 422. The body is read within the route's `bodyLimit` (413 past
 * it). A retry while the first runs: 409 with `Retry-After` (or, with `wait`, a bounded wait and the
 * replay). 5xx (returned or thrown), 401 and 429 are not stored and release the claim; a 4xx
 * `ApiError` the handler throws is stored as a returned one is. A failing or slow store: 503 with
 * `Retry-After`, nothing executed. A store that is full never drops a live record: the caller's own
 * quota full is 429, the whole store full is 503, both with `Retry-After` and nothing executed
 * (docs/idempotency.md, "Budgets").
 *
 * @example
 * app.route({
 *   method: 'POST', path: '/orders',
 *   use: [idempotency({ store: redisIdempotencyStore({ client: redis }) })],
 *   handler: createOrder,
 * });
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/
 */
export function idempotency(options: IdempotencyOptions = {}): Middleware<Context, IdempotencyAdds> {
  const config = readOptions(options);
  const { claim, execute } = claimLifecycle(config);

  const layer: Middleware = async function idempotencyMiddleware(ctx, next) {
    if (!GUARDED_METHODS.has(ctx.request.method)) return next();
    const parsed = parseIdempotencyKey(ctx.request.headers.get('idempotency-key'));
    if (parsed.kind === 'absent') {
      if (config.required) throw missingKeyError();
      return next();
    }
    if (parsed.kind === 'invalid') throw invalidKeyError(parsed.reason);

    // readBody keeps the bytes on the context, so the handler reads the same body after us; its limit
    // is the route's, the one every reader of this body uses.
    const body = await readBody(ctx);
    const { request } = ctx;
    const fingerprint = fingerprintOf(
      {
        method: request.method,
        path: canonicalPath(request.path, ctx.routePattern),
        search: request.search,
        contentType: request.headers.get('content-type'),
        body,
      },
      // The body decoder takes this parse instead of parsing the bytes again.
      (bytes) => peekJsonBody(ctx, bytes),
    );
    const key = scopeKey(ctx.var.principal?.sub, parsed.key);

    const claiming = claim(key, fingerprint, config.owner(ctx));
    // A store in memory answers at once: no promise and no microtask turn to wait for it.
    const outcome = isPromise(claiming) ? await claiming : claiming;
    switch (outcome.kind) {
      case 'completed':
        return replayOf(outcome.response);
      case 'mismatch':
        throw keyReusedError();
      case 'in-progress':
        throw inProgressError();
      case 'full':
        throw outcome.scope === 'owner' ? quotaFullError(outcome.retryAfterMs) : storeFullError();
      case 'claimed':
        return execute(ctx, next, key, outcome.token);
    }
  };
  return describeLayer(layer, {
    methods: [...GUARDED_METHODS],
    requestHeaders: {
      'Idempotency-Key': {
        description:
          'A unique key per operation: a retry with it is answered as the first time (draft-ietf-httpapi-idempotency-key-header).',
        // What parseIdempotencyKey accepts: 1 to MAX_KEY_LENGTH printable ASCII characters.
        schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: '^[\\x20-\\x7e]+$' },
        ...(config.required ? { required: true } : {}),
      },
    },
    responses: {
      // A route may answer 409 for its own reasons (a duplicate), without Retry-After.
      409: {
        description: 'Conflict: a request with this key is still in progress.',
        headers: { 'Retry-After': { ...RETRY_AFTER, required: false } },
      },
      422: { description: 'Unprocessable: this key was used with another request.' },
      429: {
        description: "Too Many Requests: the caller's idempotency quota is full.",
        headers: { 'Retry-After': RETRY_AFTER },
      },
      503: {
        description:
          'Service Unavailable: the idempotency store is full or unreachable; nothing was executed.',
        // When the store is unreachable; a full store promises no wait (docs/idempotency.md).
        headers: { 'Retry-After': { ...RETRY_AFTER, required: false } },
      },
    },
    successHeaders: {
      'Idempotent-Replayed': { description: '`true` on a replayed answer.' },
      'Idempotent-Content-Omitted': {
        description:
          "`true` on a replay without the body the first answer had: it did not fit the caller's idempotency budget. Status, `Location` and validators are the first answer's; GET the resource for its representation.",
      },
    },
  });
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  required: true,
  // delay-seconds (RFC 9110 section 10.2.3): a non-negative integer of seconds.
  schema: { type: 'integer', format: 'int64', minimum: 0 },
};
