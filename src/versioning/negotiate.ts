import { parseAccept } from '../http/accept.js';
import type { VersionPolicy } from './policy.js';

/** What the request says about its version. */
export interface VersionRequest {
  /** The `Accept` field value, if any. */
  readonly accept: string | undefined;
  /** The version named by the path (`/v2/...`), if the route has one. */
  readonly pathVersion?: number | undefined;
}

/** Where the chosen version came from. */
export type VersionSource = 'path' | 'accept' | 'default';

/** The outcome of version negotiation: a version, or the error to answer with. */
export type VersionDecision =
  | {
      readonly kind: 'chosen';
      readonly version: number;
      readonly source: VersionSource;
      /**
       * Set when `Accept` named the version: the media type it was negotiated with. The response then
       * says `Content-Type: <mediaType>;version=<version>`.
       */
      readonly mediaType: string | undefined;
    }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly code:
        | 'unknown-version'
        | 'unsupported-version'
        | 'version-conflict'
        | 'version-not-acceptable';
      readonly detail: string;
      /** `'Accept'` when the header is what was wrong. */
      readonly header: 'Accept' | undefined;
    };

/** The `version` parameter of a media type (see docs/versioning.md). */
export const VERSION_PARAMETER = 'version';

/**
 * Choose the API version of a request (see docs/versioning.md). Pure: plain values in, a decision out.
 *
 * - An unsupported path version: 404 (the resource does not exist in that version).
 * - `Accept` names versions with `;version=N` on one of the policy's media types. Among the supported
 *   ones with `q > 0` the highest `q` wins; equal `q` prefers the newer version, then the media type
 *   listed first in the policy, so the order of ranges in the header never matters. If a named
 *   version appears twice, its highest `q` counts. Unversioned ranges never choose a version: when
 *   `Accept` names versions and none is supported, the answer is `unsupportedStatus` (406), never a
 *   silent fallback to the default.
 * - A path version and `Accept` versions that do not include it: 400 (or as `onConflict` says).
 * - Nothing named: the path version, else the default; 406 if `Accept` excluded it with `q=0`.
 * - `version` on a wildcard or another media type means nothing and is ignored.
 *
 * @example
 * negotiateVersion({ accept: 'application/vnd.api+json;version=2' }, versionPolicy({ supported: [1, 2], default: 1 }));
 * // { kind: 'chosen', version: 2, source: 'accept', mediaType: 'application/vnd.api+json' }
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1
 */
export function negotiateVersion(request: VersionRequest, policy: VersionPolicy): VersionDecision {
  const { pathVersion } = request;
  if (pathVersion !== undefined && !policy.supported.has(pathVersion)) {
    return refused(
      404,
      'unknown-version',
      `API version ${pathVersion} does not exist; ${supportedList(policy)}.`,
    );
  }
  if (pathVersion !== undefined && policy.onConflict === 'path') return chosen(pathVersion, 'path');

  const named = namedVersions(request.accept, policy);
  if (!named.anyAcceptable) {
    const version = pathVersion ?? policy.defaultVersion;
    if (named.excluded.has(String(version))) {
      return refused(
        406,
        'version-not-acceptable',
        `Accept refuses API version ${version} (q=0), the version this request resolves to; ${supportedList(policy)}.`,
        'Accept',
      );
    }
    return chosen(version, pathVersion === undefined ? 'default' : 'path');
  }

  if (pathVersion !== undefined && policy.onConflict === 'reject') {
    const best = preferred(named.weights, [pathVersion], policy.mediaTypes);
    if (best === undefined) {
      return refused(
        400,
        'version-conflict',
        `The path asks for API version ${pathVersion} but Accept asks for ${describe(named.weights)}.`,
        'Accept',
      );
    }
    return chosen(pathVersion, 'path', best.mediaType);
  }

  const best = preferred(named.weights, policy.newestFirst, policy.mediaTypes);
  if (best === undefined) {
    return refused(
      policy.unsupportedStatus,
      'unsupported-version',
      `Accept asks for API version ${describe(named.weights)}, which is not supported; ${supportedList(policy)}.`,
      'Accept',
    );
  }
  return chosen(best.version, 'accept', best.mediaType);
}

interface NamedVersions {
  /** media type → version value as written → highest q given to it. */
  readonly weights: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Some named version has q > 0. */
  readonly anyAcceptable: boolean;
  /** Version values that only ever appear with q = 0. */
  readonly excluded: ReadonlySet<string>;
}

const NOTHING_NAMED: NamedVersions = { weights: new Map(), anyAcceptable: false, excluded: new Set() };

function namedVersions(accept: string | undefined, policy: VersionPolicy): NamedVersions {
  if (accept === undefined || !accept.toLowerCase().includes(VERSION_PARAMETER)) return NOTHING_NAMED;
  const weights = new Map<string, Map<string, number>>();
  for (const range of parseAccept(accept)) {
    const value = range.params.get(VERSION_PARAMETER);
    if (value === undefined) continue;
    const mediaType = `${range.type}/${range.subtype}`;
    if (!policy.mediaTypes.includes(mediaType)) continue;
    let byVersion = weights.get(mediaType);
    if (byVersion === undefined) {
      byVersion = new Map();
      weights.set(mediaType, byVersion);
    }
    // A weight that is no number (`q=x`) is never acceptable, and never hides another range's weight.
    const q = Number.isNaN(range.q) ? 0 : range.q;
    byVersion.set(value, Math.max(byVersion.get(value) ?? 0, q));
  }
  let anyAcceptable = false;
  const excluded = new Set<string>();
  const acceptable = new Set<string>();
  for (const byVersion of weights.values()) {
    for (const [value, q] of byVersion) {
      if (q > 0) {
        anyAcceptable = true;
        acceptable.add(value);
      } else {
        excluded.add(value);
      }
    }
  }
  for (const value of acceptable) excluded.delete(value);
  return { weights, anyAcceptable, excluded };
}

/** The best acceptable (version, media type) pair among `versions` (already in preference order). */
function preferred(
  weights: NamedVersions['weights'],
  versions: readonly number[],
  mediaTypes: readonly string[],
): { version: number; mediaType: string } | undefined {
  let best: { version: number; mediaType: string; q: number } | undefined;
  for (const version of versions) {
    const value = String(version);
    for (const mediaType of mediaTypes) {
      const q = weights.get(mediaType)?.get(value) ?? 0;
      if (q > 0 && (best === undefined || q > best.q)) best = { version, mediaType, q };
    }
  }
  return best;
}

/** The acceptable versions the client named, quoted and shortened: the detail echoes client input. */
function describe(weights: NamedVersions['weights']): string {
  const values = new Set<string>();
  for (const byVersion of weights.values()) {
    for (const [value, q] of byVersion) if (q > 0) values.add(JSON.stringify(value.slice(0, 16)));
  }
  const listed = [...values].sort();
  return listed.length > 4 ? `${listed.slice(0, 4).join(', ')} (and more)` : listed.join(' or ');
}

function supportedList(policy: VersionPolicy): string {
  return `supported versions: ${[...policy.newestFirst].reverse().join(', ')}`;
}

function chosen(version: number, source: VersionSource, mediaType?: string): VersionDecision {
  return { kind: 'chosen', version, source, mediaType };
}

function refused(
  status: number,
  code: Extract<VersionDecision, { kind: 'refused' }>['code'],
  detail: string,
  header?: 'Accept',
): VersionDecision {
  return { kind: 'refused', status, code, detail, header };
}
