import { JSON_API, JSON_MEDIA } from '../http/media-types.js';

/** What happens when the path names one version and `Accept` names only others. */
export type VersionConflictRule = 'reject' | 'path' | 'accept';

/** How versions are chosen (see docs/versioning.md). Read once, when the middleware is built. */
export interface VersioningOptions {
  /** The versions this API serves: positive integers, e.g. `[1, 2]`. */
  readonly supported: readonly number[];
  /** The version served when neither the path nor `Accept` names one. Must be supported. */
  readonly default: number;
  /**
   * When the path names a version and `Accept` names versions but not that one:
   * `'reject'` (default) answers 400; `'path'` ignores `Accept`'s version; `'accept'` lets `Accept` win.
   */
  readonly onConflict?: VersionConflictRule;
  /** The status for a version asked for in `Accept` that is not supported (default 406). */
  readonly unsupportedStatus?: number;
  /**
   * Media types whose `version` parameter selects the version, in server preference order
   * (default: `application/vnd.api+json`, `application/json`).
   */
  readonly mediaTypes?: readonly string[];
}

/** Validated, normalized {@link VersioningOptions}. */
export interface VersionPolicy {
  /** Supported versions, newest first. */
  readonly newestFirst: readonly number[];
  readonly supported: ReadonlySet<number>;
  readonly defaultVersion: number;
  readonly onConflict: VersionConflictRule;
  readonly unsupportedStatus: number;
  /** Lower-cased `type/subtype`, server preference order. */
  readonly mediaTypes: readonly string[];
}

/** The versioned media types used when none are configured. */
export const DEFAULT_VERSIONED_MEDIA_TYPES: readonly string[] = Object.freeze([JSON_API, JSON_MEDIA]);

const CONFLICT_RULES: readonly string[] = ['reject', 'path', 'accept'];
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Check {@link VersioningOptions} and normalize them; throws a `TypeError` naming the bad option, so a
 * misconfiguration stops the application at start-up rather than at request time.
 *
 * @example versionPolicy({ supported: [1, 2], default: 1 })
 */
export function versionPolicy(options: VersioningOptions): VersionPolicy {
  const { supported } = options;
  if (!Array.isArray(supported) || supported.length === 0) {
    throw new TypeError('versioning: "supported" must be a non-empty array of versions, e.g. [1, 2]');
  }
  for (const version of supported) {
    if (!isVersionNumber(version)) {
      throw new TypeError(
        `versioning: "supported" versions must be positive integers, got ${String(version)}`,
      );
    }
  }
  const set = new Set(supported);
  if (set.size !== supported.length) throw new TypeError('versioning: "supported" lists a version twice');
  if (!set.has(options.default)) {
    throw new TypeError(
      `versioning: "default" must be one of the supported versions (${supported.join(', ')}), got ${String(options.default)}`,
    );
  }
  const onConflict = options.onConflict ?? 'reject';
  if (!CONFLICT_RULES.includes(onConflict)) {
    throw new TypeError(
      `versioning: "onConflict" must be one of ${CONFLICT_RULES.join(', ')}, got ${String(onConflict)}`,
    );
  }
  const unsupportedStatus = options.unsupportedStatus ?? 406;
  if (!Number.isInteger(unsupportedStatus) || unsupportedStatus < 400 || unsupportedStatus > 499) {
    throw new TypeError(
      `versioning: "unsupportedStatus" must be a 4xx status, got ${String(unsupportedStatus)}`,
    );
  }
  const mediaTypes = (options.mediaTypes ?? DEFAULT_VERSIONED_MEDIA_TYPES).map((type) => type.toLowerCase());
  if (mediaTypes.length === 0 || mediaTypes.some((type) => !MEDIA_TYPE.test(type) || type.includes('*'))) {
    throw new TypeError(
      `versioning: "mediaTypes" must be concrete type/subtype names without parameters, got ${mediaTypes.join(', ')}`,
    );
  }
  return {
    newestFirst: [...supported].sort((a, b) => b - a),
    supported: set,
    defaultVersion: options.default,
    onConflict,
    unsupportedStatus,
    mediaTypes,
  };
}

/** A version number as this library understands it: a positive safe integer. */
export function isVersionNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
