import { unauthenticatedError } from '../auth/errors.js';
import { defineMiddleware } from '../core/compose.js';
import { whenSettled } from '../core/maybe-promise.js';
import { functionOption, realmOption } from '../errors/option-checks.js';
import type { Context, Middleware, Principal } from '../http/types.js';
import type { LevelFact } from './decision.js';
import { noSuchRecordError } from './errors.js';
import type { OwnedRecord, ParamsFor } from './owned-path.js';

export interface OwnedResourceOptions<R, N extends string, K extends string = string, Id = string> {
  /** The route parameter holding the record's id. Default `id`. */
  readonly param?: N;
  /**
   * The noun used in the 404 detail (`No order with id "7".`), and the name the record is added
   * under: `ctx.var.order`. Default `resource`.
   */
  readonly noun?: K;
  /**
   * Loads the record by its path id, as the route's `params` codec decoded it (`load: (id: number)`
   * on a route that decodes `{id}` to a number; the string otherwise); `undefined`/`null` means absent
   * (also for an id no record could have). It gets the request's context too: under a keyed write on
   * PostgreSQL, load through its transaction (`transactionOrPool(ctx, pool)`, docs/idempotency.md).
   */
  readonly load: (
    id: Id,
    ctx: Context<ParamsFor<N, Id>>,
  ) => R | undefined | null | Promise<R | undefined | null>;
  /** The `sub` of the principal who owns the record. */
  readonly ownerOf: (record: R) => string;
  /** The `realm` of the 401 challenge (RFC 6750 section 3). Default `api`, as `requireAuth` uses. */
  readonly realm?: string;
}

/**
 * A flat resource its caller owns (`/orders/{id}`), as a route middleware and as a loader for
 * `conditional({ load })`. Either way the record is loaded once per request.
 */
export interface OwnedResource<R, N extends string, K extends string = string, Id = string>
  extends Middleware<Context<ParamsFor<N, Id>>, OwnedRecord<K, R>> {
  /**
   * Loads the caller's record or throws the refusal (401 without a principal, the same 404 for an
   * absent record and for another user's). Pass it as `conditional({ load })`, so the owner check
   * comes before any precondition (304, 412, 428).
   */
  load(ctx: Context<ParamsFor<N, Id>>): Promise<R>;
}

/**
 * The fact one owned record gives the ownership rule: absent, someone else's, or the caller's. Pure.
 */
export function ownedRecordFact<R>(
  record: R | undefined | null,
  principal: Principal,
  ownerOf: (record: R) => string,
): LevelFact {
  if (record === undefined || record === null) return 'absent';
  return ownerOf(record) === principal.sub ? 'present' : 'foreign';
}

/**
 * A flat resource only its owner may see (OWASP API1:2023; see docs/ownership.md): no principal → 401
 * (the answer of `requireAuth`); absent, or owned by someone else → the same 404 (RFC 9110 section
 * 15.5.5), whose body depends on the noun and the id asked for only. The record reaches the handler
 * typed, as `ctx.var.<noun>` (`ctx.var.order`); through `conditional({ load })`, as `ctx.var.entity`.
 *
 * @example
 * const ownOrder = ownedResource({ noun: 'order', load: (id) => orders.get(id), ownerOf: (o) => o.ownerId });
 * defineRoute({ method: 'DELETE', path: '/orders/{id}', use: [ownOrder], handler: (ctx) => ... ctx.var.order });
 * conditional({ load: ownOrder.load, validators: (_ctx, order) => ({ etag: versionEtag(order.version) }) });
 */
export function ownedResource<R, N extends string = 'id', const K extends string = string, Id = string>(
  options: OwnedResourceOptions<R, N, K, Id>,
): OwnedResource<R, N, K, Id> {
  const param = options.param ?? 'id';
  if (typeof param !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(param)) {
    throw new TypeError(`ownedResource: param must be a route parameter name, got ${JSON.stringify(param)}`);
  }
  functionOption('ownedResource', 'load', options.load);
  functionOption('ownedResource', 'ownerOf', options.ownerOf);
  const noun = options.noun ?? 'resource';
  if (typeof noun !== 'string' || noun === '')
    throw new TypeError('ownedResource: noun must be a non-empty string');
  const realm = realmOption('ownedResource', options.realm);
  const { load, ownerOf } = options;

  // The decision of nextOwnershipStep for a path of depth 1 whose access rule always allows: no
  // principal, 401; anything but the caller's own record, the same 404. Written out, since it runs
  // on every request of the route.
  const owned = (ctx: Context, id: Id, record: R | undefined | null): R => {
    if (ownedRecordFact(record, ctx.var.principal!, ownerOf) !== 'present') {
      // A function of (noun, id) only: "absent" and "someone else's" cannot differ.
      throw noSuchRecordError(noun, String(id));
    }
    return record as R;
  };

  function loadOwned(ctx: Context<ParamsFor<N, Id>>): Promise<R> {
    if (ctx.var.principal === undefined) return Promise.reject(unauthenticatedError(realm));
    const id = (ctx.params as Partial<ParamsFor<N, Id>>)[param as N];
    if (id === undefined) {
      return Promise.reject(new Error(`ownedResource: the route has no {${param}} parameter`));
    }
    try {
      return Promise.resolve(whenSettled(load(id, ctx), (record) => owned(ctx, id, record)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // As a layer it adds the record under its noun; as `conditional`'s loader it only returns it, and
  // `conditional` adds it as `entity`: either way the record is written to `ctx.var` once.
  const layer = defineMiddleware<Context<ParamsFor<N, Id>>, undefined, OwnedRecord<K, R>>({
    before: function ownedResourceGuard(ctx) {
      return loadOwned(ctx).then((record) => {
        ctx.var[noun] = record;
        return undefined;
      });
    },
  });
  return Object.assign(layer, { load: loadOwned });
}
