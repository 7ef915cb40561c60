/**
 * rest-conventions/testing: fast-check arbitraries for the conventions' inputs, requests drawn from an
 * OpenAPI document, a response-against-document checker, and ready properties any team runs
 * against its own API. Needs the optional peers `fast-check` and `ajv`.
 */
export { type ConformanceResult, conformanceChecker, type Exchange } from './conformance.js';
export {
  type AcceptOptions,
  acceptHeader,
  entityTag,
  entityTagList,
  hostileBody,
  hostileHeaders,
  hostilePath,
  hostileQuery,
  httpDate,
  idempotencyKey,
  invalidHttpDate,
  jsonApiDocument,
} from './convention-arbitraries.js';
export { type Discovered, discover, subjectOf } from './discover.js';
export { changedValue, exampleBodies, simplestValue } from './example-values.js';
export { curlCommand, NotChecked, QuotaRefused } from './failure.js';
export { freshValues } from './fresh-values.js';
export {
  type ConventionProperty,
  type CreateHint,
  checkConventions,
  conventionProperties,
  FRAMEWORK_STATUSES,
  type KitOptions,
  type KitProfile,
  type MovedUrl,
  PROPERTY_IDS,
  type PropertyId,
  type PropertyReport,
} from './kit.js';
export { type MatchedOperation, operationMatcher } from './operation-matcher.js';
export {
  type GeneratedRequest,
  type RequestArbitraryOptions,
  requestArbitrary,
} from './operation-requests.js';
export { MAX_QUOTA_WAIT_SECONDS } from './quota.js';
export {
  describeResponse,
  documentProblems,
  INTERNAL_FIELDS,
  REQUIRED_SECURITY_HEADERS,
} from './response-checks.js';
export { type InvalidValue, invalidValue, validValue } from './schema-arbitrary.js';
export {
  fetchTarget,
  REQUEST_TIMEOUT_MS,
  type Target,
  type TargetRequest,
  type TargetResponse,
  urlTarget,
} from './target.js';
