import * as t from 'io-ts';
import { optionError } from '../errors/option-checks.js';
import type { Context, Middleware } from '../http/types.js';
import { isVersionNumber } from './policy.js';

/**
 * What changed between version `k` and `k + 1`, registered under `k`: how to bring a version-`k`
 * request up to `k + 1`, and how to bring a version-`k + 1` response down to `k`. Either may be left
 * out when the change does not touch that direction. Transforms return new values; they must not
 * mutate their input.
 */
export interface VersionChange {
  /** One line for the changelog, e.g. `"name" split into "givenName" and "familyName"`. */
  readonly description?: string;
  /** A request body (as the codec sees it) written for version k, rewritten for version k + 1. */
  readonly request?: (body: unknown) => unknown;
  /** A response document of version k + 1, rewritten as version k. */
  readonly response?: (document: unknown) => unknown;
}

export interface VersionChangesOptions {
  /** The newest version: the one handlers produce and consume. */
  readonly latest: number;
  /** One {@link VersionChange} per older version, keyed by that version; no gaps below `latest`. */
  readonly transforms: Readonly<Record<number, VersionChange>>;
}

/** A chain of version changes, as built by {@link defineVersions}. */
export interface VersionChanges {
  readonly latest: number;
  /** Every version the chain can serve, oldest first. */
  readonly supported: readonly number[];
  /** The newest representation passed down the response transforms to `version`. */
  downgrade(document: unknown, version: number): unknown;
  /** A request body of `version` passed up the request transforms to the newest version. */
  upgrade(body: unknown, version: number): unknown;
  /**
   * A codec that upgrades its input from the request's version (see `versioning`) and then decodes
   * it with the newest version's `codec`; pass it to `decodeJsonBody`.
   */
  requestCodec<A, O>(ctx: Context, codec: t.Type<A, O, unknown>): t.Type<A, O, unknown>;
  /** Middleware that downgrades successful JSON responses to the request's version. */
  readonly middleware: Middleware;
}

/**
 * Version transformers in the style of Stripe's API versioning: handlers speak only the newest
 * version, and each older version registers a small change (request up, response down), so one
 * handler serves every version (a breaking change gets a new version; see docs/versioning.md).
 *
 * @example
 * const userVersions = defineVersions({
 *   latest: 2,
 *   transforms: {
 *     1: {
 *       description: '"name" split into "givenName" and "familyName"',
 *       request: (body) => splitName(body),
 *       response: mapAttributes((user) => joinName(user), { type: 'users' }),
 *     },
 *   },
 * });
 * @see https://stripe.com/blog/api-versioning
 */
export function defineVersions(options: VersionChangesOptions): VersionChanges {
  const { latest } = options;
  if (!isVersionNumber(latest)) {
    throw optionError('defineVersions', 'latest', 'a positive integer', latest);
  }
  const changes = new Map<number, VersionChange>();
  for (const [key, change] of Object.entries(options.transforms ?? {})) {
    const version = Number(key);
    if (!isVersionNumber(version) || String(version) !== key || version >= latest) {
      throw new TypeError(
        `defineVersions: transform keys must be versions below latest (${latest}), got "${key}"`,
      );
    }
    if (typeof change !== 'object' || change === null) {
      throw new TypeError(`defineVersions: the transform of version ${version} must be an object`);
    }
    for (const direction of ['request', 'response'] as const) {
      if (change[direction] !== undefined && typeof change[direction] !== 'function') {
        throw new TypeError(`defineVersions: "${direction}" of version ${version} must be a function`);
      }
    }
    changes.set(version, change);
  }
  const oldest = changes.size === 0 ? latest : Math.min(...changes.keys());
  for (let version = oldest; version < latest; version++) {
    if (!changes.has(version)) {
      throw new TypeError(
        `defineVersions: version ${version} has no transform, so versions ${oldest}..${latest} do not form a chain`,
      );
    }
  }
  const supported = Object.freeze(Array.from({ length: latest - oldest + 1 }, (_, i) => oldest + i));

  const check = (version: number): void => {
    if (!Number.isInteger(version) || version < oldest || version > latest) {
      throw new RangeError(`Version ${version} is not in this chain (${oldest}..${latest})`);
    }
  };
  const downgrade = (document: unknown, version: number): unknown => {
    check(version);
    let value = document;
    for (let v = latest - 1; v >= version; v--) {
      const step = changes.get(v)!.response;
      if (step !== undefined) value = step(value);
    }
    return value;
  };
  const upgrade = (body: unknown, version: number): unknown => {
    check(version);
    let value = body;
    for (let v = version; v < latest; v++) {
      const step = changes.get(v)!.request;
      if (step !== undefined) value = step(value);
    }
    return value;
  };

  return {
    latest,
    supported,
    downgrade,
    upgrade,
    requestCodec(ctx, codec) {
      const version = versionOf(ctx);
      if (version === latest) return codec;
      return new t.Type(
        codec.name,
        codec.is,
        (input, context) => codec.validate(upgrade(input, version), context),
        codec.encode,
      );
    },
    middleware: async function downgradeResponse(ctx, next) {
      const version = versionOf(ctx);
      check(version);
      const response = await next();
      const successful = response.status >= 200 && response.status < 300;
      if (version !== latest && successful && response.json !== undefined && response.raw === undefined) {
        response.json = downgrade(response.json, version);
      }
      return response;
    },
  };
}

function versionOf(ctx: Context): number {
  const version = ctx.var.apiVersion;
  if (version === undefined) {
    throw new Error(
      'No API version on the context: the versioning() middleware must run before version transforms',
    );
  }
  return version;
}

type Attributes = Record<string, unknown>;

function isObject(value: unknown): value is Attributes {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lift a change of resource attributes to a change of a whole JSON:API document: `transform` is applied
 * to the `attributes` of each resource object in `data` (one or many) and `included`, optionally only
 * to resources of one `type`. Anything else in the document is kept as it is.
 *
 * @example response: mapAttributes(({ givenName, familyName, ...rest }) => ({ ...rest, name: `${givenName} ${familyName}` }), { type: 'users' })
 * @see https://jsonapi.org/format/1.0/#document-resource-objects
 */
export function mapAttributes(
  transform: (attributes: Record<string, unknown>) => Record<string, unknown>,
  options: { readonly type?: string } = {},
): (document: unknown) => unknown {
  const mapResource = (resource: unknown): unknown => {
    if (!isObject(resource) || !isObject(resource.attributes)) return resource;
    if (options.type !== undefined && resource.type !== options.type) return resource;
    return { ...resource, attributes: transform(resource.attributes) };
  };
  return function mapDocumentAttributes(document) {
    if (!isObject(document)) return document;
    const mapped: Attributes = { ...document };
    if (Array.isArray(document.data)) mapped.data = document.data.map(mapResource);
    else if (document.data !== undefined) mapped.data = mapResource(document.data);
    if (Array.isArray(document.included)) mapped.included = document.included.map(mapResource);
    return mapped;
  };
}
