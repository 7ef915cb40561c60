export { type MediaRange, parseAccept } from '../http/accept.js';
export { assertCompatibleChange, compatibilityProblems } from './compatibility.js';
export {
  type PathVersionReader,
  type PathVersionSegment,
  type VersionAdds,
  type VersioningMiddlewareOptions,
  versionedPath,
  versioning,
} from './middleware.js';
export {
  negotiateVersion,
  VERSION_PARAMETER,
  type VersionDecision,
  type VersionRequest,
  type VersionSource,
} from './negotiate.js';
export {
  DEFAULT_VERSIONED_MEDIA_TYPES,
  type VersionConflictRule,
  type VersioningOptions,
  type VersionPolicy,
  versionPolicy,
} from './policy.js';
export {
  VERSION_SEGMENT_TEMPLATE,
  type VersionedContext,
  type VersionedParams,
  type VersionedRouteDefinition,
  versionedRoutes,
} from './routes.js';
export {
  defineVersions,
  mapAttributes,
  type VersionChange,
  type VersionChanges,
  type VersionChangesOptions,
} from './transforms.js';
