/**
 * rest-conventions: the factories and model types a first app uses (the README's example, and the first
 * example of each page under docs/). Everything else (pure decision cores, stores, parsers, constants)
 * is on its subpath: `rest-conventions/caching`, `rest-conventions/idempotency`, ... (docs/api.md).
 */

// One middleware factory per convention.
export { authenticate, hs256Verifier, requireAuth, requireScopes } from './auth/index.js';
export { conditional } from './caching/index.js';
// The app, declared routes, the pipeline and responses (docs/core.md).
export {
  type ApiResponse,
  type App,
  type AppOptions,
  type Context,
  createApp,
  created,
  defineMiddleware,
  defineRoute,
  type EarlyResponse,
  earlyResponse,
  except,
  type Handler,
  json,
  type Logger,
  type Middleware,
  noContent,
  type Params,
  type Principal,
  type RouteDefinition,
} from './core/index.js';
export { cors } from './cors/index.js';
export { deprecation } from './deprecation/index.js';
// JSON:API documents (docs/envelope.md).
export {
  type DataDocument,
  dataDocument,
  defineResourceType,
  type ResourceObject,
  type ResourceType,
  resourceObject,
} from './envelope/index.js';
// Errors (docs/errors.md).
export { ApiError, type ApiErrorOptions, type ErrorDocument, isApiError } from './errors/index.js';
export { idempotency } from './idempotency/index.js';
export { ownershipGuard } from './ownership/index.js';
export { rateLimit } from './ratelimit/index.js';
export { securityHeaders } from './security/index.js';
// Decoding requests (docs/validation.md).
export {
  decodeJsonBody,
  decodeQuery,
  integer,
  positiveInteger,
  strictObject,
  text,
} from './validation/index.js';
export { versioning } from './versioning/index.js';
