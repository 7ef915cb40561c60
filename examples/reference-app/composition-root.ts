import { type App, createApp, type Logger } from 'rest-conventions';
import { authenticate, hs256Verifier, type TokenVerifier } from 'rest-conventions/auth';
import { cacheControlDefault } from 'rest-conventions/caching';
import { movedUrls } from 'rest-conventions/deprecation';
import { type IdempotencyStore, memoryStore } from 'rest-conventions/idempotency';
import { memoryRateLimitStore, type RateLimitStore, rateLimit } from 'rest-conventions/ratelimit';
import { securityHeaders } from 'rest-conventions/security';
import { createInjector } from 'typed-inject';
import { type BookStore, MemoryBookStore } from './books/book-store.js';
import { BooksRoutes } from './books/books-routes.js';
import type { Config } from './config.js';
import { MemoryOrderStore, type OrderStore } from './orders/order-store.js';
import { OrdersRoutes } from './orders/orders-routes.js';
import { MemoryStandardStore, type StandardStore } from './standards/standard-store.js';
import { StandardsRoutes } from './standards/standards-routes.js';
import { MemoryUserStore, type UserStore } from './users/user-store.js';
import { UsersRoutes } from './users/users-routes.js';

function verifierFrom(config: Config): TokenVerifier {
  return hs256Verifier({ secret: config.authSecret });
}
verifierFrom.inject = ['config'] as const;

/** URLs that moved: the old ones answer 308 with the new location. */
export const MOVED_URLS = [{ from: '/users/{id}/accountType', to: '/users/{id}/account-type' }] as const;

/** Stores to use instead of the embedded in-memory ones (see `infrastructure.ts`). */
export interface StoreOverrides {
  readonly idempotencyStore?: IdempotencyStore;
  readonly rateLimitStore?: RateLimitStore;
  readonly bookStore?: BookStore;
  readonly orderStore?: OrderStore;
  readonly userStore?: UserStore;
  readonly standardStore?: StandardStore;
}

/**
 * The one place where the reference app is wired: configuration, stores, the token verifier and
 * the route modules. Everything it uses comes from the package's public exports.
 */
export function createReferenceApp(config: Config, logger: Logger, stores: StoreOverrides = {}): App {
  const injector = createInjector()
    .provideValue('config', config)
    .provideValue('logger', logger)
    .provideFactory('verifier', verifierFrom)
    .provideValue('bookStore', stores.bookStore ?? new MemoryBookStore())
    .provideValue('orderStore', stores.orderStore ?? new MemoryOrderStore())
    .provideValue('userStore', stores.userStore ?? new MemoryUserStore())
    .provideValue('standardStore', stores.standardStore ?? new MemoryStandardStore())
    .provideValue('idempotencyStore', stores.idempotencyStore ?? memoryStore())
    .provideClass('booksRoutes', BooksRoutes)
    .provideClass('ordersRoutes', OrdersRoutes)
    .provideClass('usersRoutes', UsersRoutes)
    .provideClass('standardsRoutes', StandardsRoutes);

  const { rateLimit: limits } = config;
  // One limiter, used twice: after authentication, so callers are keyed by user (else by address),
  // outside every route so 404s, replays and conflicts count too; and around authentication
  // failures, which have no user and so count against the caller's address.
  const limiter = rateLimit({
    policies: [{ name: 'default', quota: limits.max, windowSeconds: limits.windowSeconds }],
    store: stores.rateLimitStore ?? memoryRateLimitStore(),
    onStoreError: limits.onStoreError,
  });
  const app = createApp({
    logger,
    use: [
      securityHeaders(),
      cacheControlDefault(),
      // Before authentication: an old URL redirects whoever asks, like the new one would answer.
      movedUrls({ table: MOVED_URLS }),
      authenticate({ verifier: injector.resolve('verifier'), failureLimit: limiter }),
      limiter,
    ],
  });
  injector.resolve('booksRoutes').register(app);
  injector.resolve('ordersRoutes').register(app);
  injector.resolve('usersRoutes').register(app);
  injector.resolve('standardsRoutes').register(app);
  return app;
}
