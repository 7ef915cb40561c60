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
} from './verifier.js';
