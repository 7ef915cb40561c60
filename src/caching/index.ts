/**
 * rest-conventions/caching: validators (ETag, Last-Modified), conditional requests (RFC 9110
 * section 13), Cache-Control policies (RFC 9111) and optimistic concurrency (RFC 6585 428).
 */
export { type BodyEtagOptions, bodyEtag } from './body-etag.js';
export { type CacheControlDefaultOptions, cacheControlDefault } from './cache-control-default.js';
export {
  type CachePolicy,
  type CachePolicyOptions,
  cachePolicy,
  PRIVATE_REVALIDATED,
} from './cache-policy.js';
export {
  type ConditionalAdds,
  type ConditionalOptions,
  conditional,
  type Validators,
} from './conditional.js';
export { type DigestPart, digestEtag } from './digest-etag.js';
export {
  type EntityTag,
  type EntityTagList,
  formatEtag,
  misplacedWildcard,
  parseEntityTag,
  parseEntityTagList,
  serializeEntityTag,
  serializeEntityTagList,
  strongMatch,
  validateEtag,
  versionEtag,
  weakMatch,
} from './entity-tag.js';
export { preconditionFailedError, preconditionRequiredError } from './errors.js';
export { formatHttpDate, parseHttpDate } from './http-date.js';
export { notModified, RETAINED_304_HEADERS } from './not-modified.js';
export {
  type CurrentState,
  decidePreconditions,
  evaluatePreconditions,
  type PreconditionDecision,
  type PreconditionField,
  type PreconditionHeaders,
  type PreconditionInput,
  type PreconditionOutcome,
} from './preconditions.js';
