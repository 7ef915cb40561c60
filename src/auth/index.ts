export {
  checkTimeClaims,
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  DEFAULT_MAX_TOKEN_AGE_SECONDS,
  type TimeClaimsPolicy,
} from './claims.js';
export { type BearerCredential, bearerCredential, missingScopes } from './credentials.js';
export { type AuthenticateOptions, authenticate, requireAuth, requireScopes } from './middleware.js';
export {
  hs256Verifier,
  InvalidTokenError,
  type JwtClaims,
  type JwtKeyResolver,
  type JwtVerifierOptions,
  jwtVerifier,
  principalFromClaims,
  signHs256Token,
  type TokenClaims,
  type TokenVerifier,
  type WebCryptoKey,
} from './verifier.js';
