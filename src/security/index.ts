export {
  DEFAULT_SECURITY_HEADERS,
  resolveSecurityHeaders,
  type SecurityHeaderName,
  type SecurityHeadersOptions,
  SOFTWARE_HEADERS,
} from './headers.js';
export { securityHeaders } from './middleware.js';
