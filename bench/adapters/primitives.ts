/**
 * The primitives the `<framework>+rc` servers add through `rest-conventions/<framework>`, for the
 * same four jobs as the peers' own plugins (`bench/peers/`): security headers, bearer JWTs, rate
 * limiting and conditional GET (a hashed ETag, 304). Everything else (routes, documents, orders,
 * the hand-written `Idempotency-Key` replay) is the peers' own code from `bench/peers/catalogue.ts`,
 * so a pair differs only in who does those four jobs (docs/benchmarks.md, "Adapter overhead").
 */
import type { Middleware } from 'rest-conventions';
import { authenticate, hs256Verifier } from 'rest-conventions/auth';
import { conditional } from 'rest-conventions/caching';
import { memoryRateLimitStore, rateLimit } from 'rest-conventions/ratelimit';
import { securityHeaders } from 'rest-conventions/security';
import { AUTH_SECRET, RATE_LIMIT } from '../peers/catalogue.js';

export const primitives = (): Middleware[] => [
  securityHeaders(),
  rateLimit({
    policies: [{ name: 'default', quota: RATE_LIMIT.max, windowSeconds: RATE_LIMIT.windowMs / 1000 }],
    store: memoryRateLimitStore(),
  }),
  conditional({}),
  authenticate({ verifier: hs256Verifier({ secret: AUTH_SECRET }) }),
];
