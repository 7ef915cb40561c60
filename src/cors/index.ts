export { type CorsAnswer, type CorsDecision, type CorsRequest, corsDecision } from './decision.js';
export { cors } from './middleware.js';
export {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  type CorsOptions,
  type CorsPolicy,
  corsPolicy,
  DEFAULT_CORS_MAX_AGE_SECONDS,
} from './policy.js';
