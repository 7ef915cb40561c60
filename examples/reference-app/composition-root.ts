import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { type App, type Context, createApp, except, type Logger } from 'rest-conventions';
import { authenticate, hs256Verifier, type TokenVerifier } from 'rest-conventions/auth';
import { cacheControlDefault } from 'rest-conventions/caching';
import { cors } from 'rest-conventions/cors';
import { movedUrls } from 'rest-conventions/deprecation';
import { type IdempotencyStore, memoryIdempotencyStore } from 'rest-conventions/idempotency';
import { docsPage } from 'rest-conventions/openapi';
import { openTelemetry, storeTelemetry } from 'rest-conventions/opentelemetry';
import { memoryRateLimitStore, type RateLimitStore, rateLimit } from 'rest-conventions/ratelimit';
import { securityHeaders } from 'rest-conventions/security';
import { createInjector } from 'typed-inject';
import { API_INFO, apiDescriptionRoutes } from './api-description/api-description-routes.js';
import { type BookStore, MemoryBookStore } from './books/book-store.js';
import { booksRoutes } from './books/books-routes.js';
import type { Config } from './config.js';
import { HEALTH_PATHS, healthRoutes } from './health/health-routes.js';
import type { ReadinessCheck } from './health/readiness.js';
import { MemoryOrderStore, type OrderStore } from './orders/order-store.js';
import { ordersRoutes } from './orders/orders-routes.js';
import { MemoryStandardStore, type StandardStore } from './standards/standard-store.js';
import { standardsRoutes } from './standards/standards-routes.js';
import { MemoryUserStore, type UserStore } from './users/user-store.js';
import { usersRoutes } from './users/users-routes.js';

function verifierFrom(config: Config, overrides: StoreOverrides): TokenVerifier {
  return overrides.tokenVerifier ?? hs256Verifier({ secret: config.authSecret });
}
verifierFrom.inject = ['config', 'overrides'] as const;

/** URLs that moved: the old ones answer 308 with the new location. */
export const MOVED_URLS = [{ from: '/users/{id}/accountType', to: '/users/{id}/account-type' }] as const;

/** Stores to use instead of the embedded in-memory ones (see `infrastructure.ts`), and the token verifier. */
export interface StoreOverrides {
  /** Instead of HS256 with `AUTH_SECRET`: a `jwtVerifier` on an identity provider's key set, say. */
  readonly tokenVerifier?: TokenVerifier;
  readonly idempotencyStore?: IdempotencyStore;
  readonly rateLimitStore?: RateLimitStore;
  readonly bookStore?: BookStore;
  readonly orderStore?: OrderStore;
  readonly userStore?: UserStore;
  readonly standardStore?: StandardStore;
  /** What `GET /health/ready` asks (none: always ready). */
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** Where traces and metrics go instead of OpenTelemetry's global providers (tests pass their own). */
  readonly telemetry?: { readonly tracerProvider?: TracerProvider; readonly meterProvider?: MeterProvider };
}

/** Telemetry is wired when the environment asks for it (`METRICS_PORT`, `OTEL_*`) or a test passes providers. */
function telemetryWanted(config: Config, overrides: StoreOverrides): boolean {
  return config.telemetry.enabled || overrides.telemetry !== undefined;
}

/** `db.system.name` of each store the config may choose (OpenTelemetry database conventions). */
const DB_SYSTEM = { memory: 'memory', redis: 'redis', postgres: 'postgresql' } as const;

/**
 * Who called, for the rate-limit and deprecation counters: the OAuth client the token was issued to
 * (its `client_id` claim, RFC 9068 section 2.2), a bounded set, never the user.
 */
function callerOf(ctx: Context): string {
  const client = ctx.var.principal?.claims.client_id;
  if (typeof client === 'string') return client;
  return ctx.var.principal === undefined ? 'anonymous' : 'unknown-client';
}

type Limiter = ReturnType<typeof rateLimit>;

/** One limiter, used twice: around authentication failures and after authentication (below). */
function limiterFrom(config: Config, store: RateLimitStore): Limiter {
  const { rateLimit: limits } = config;
  return rateLimit({
    policies: [{ name: 'default', quota: limits.max, windowSeconds: limits.windowSeconds }],
    store,
    timeoutMs: limits.storeTimeoutMs,
    onStoreError: limits.onStoreError,
  });
}
limiterFrom.inject = ['config', 'rateLimitStore'] as const;

/** Every feature's routes, from their dependencies, in the order they are registered. */
function featureRoutes(
  config: Config,
  bookStore: BookStore,
  orderStore: OrderStore,
  userStore: UserStore,
  standardStore: StandardStore,
  idempotencyStore: IdempotencyStore,
  readinessChecks: readonly ReadinessCheck[],
) {
  const keyedWrites = { store: idempotencyStore, storeTimeoutMs: config.idempotencyStoreTimeoutMs };
  const deps = { bookStore, orderStore, userStore, standardStore, keyedWrites, readinessChecks };
  return [
    ...healthRoutes(deps),
    ...booksRoutes(deps),
    ...ordersRoutes(deps),
    ...usersRoutes(deps),
    ...standardsRoutes(deps),
  ];
}
featureRoutes.inject = [
  'config',
  'bookStore',
  'orderStore',
  'userStore',
  'standardStore',
  'idempotencyStore',
  'readinessChecks',
] as const;

/** The app: its middleware around every request, then every feature's routes and the description. */
function appFrom(
  config: Config,
  logger: Logger,
  overrides: StoreOverrides,
  verifier: TokenVerifier,
  limiter: Limiter,
  routes: ReturnType<typeof featureRoutes>,
): App {
  const app = createApp({
    logger,
    // `/openapi.json` is a document's conventional name, not a resource segment.
    naming: { allowSegments: ['openapi.json'] },
    use: [
      // First: it sees every layer's final answer (docs/observability.md). Only when asked for: an
      // app without telemetry has no layer for it.
      ...(telemetryWanted(config, overrides)
        ? [openTelemetry({ ...overrides.telemetry, caller: callerOf })]
        : []),
      securityHeaders(),
      // Before every layer that may answer, so browsers on allowed origins can read errors and 429s.
      cors({ origins: config.corsOrigins }),
      cacheControlDefault(),
      // Failed credentials are counted against the caller's address by the same limiter.
      authenticate({ verifier, failureLimit: limiter }),
      // After authentication, so callers are keyed by user (else by address); outside every route,
      // so 404s, replays, conflicts and redirects count too. Health probes are exempt: a limited
      // probe would take a healthy instance out of rotation.
      except(HEALTH_PATHS, limiter),
      // After the limiter: a 308 for an old URL is a request like any other (RateLimit headers).
      movedUrls({ table: MOVED_URLS }),
    ],
  });
  for (const route of routes) app.route(route);
  // Last: the description reads every route registered above (at its first request).
  const docs = docsPage({ specUrl: '/openapi.json', path: '/docs', title: API_INFO.title });
  for (const route of apiDescriptionRoutes({ app, docs })) app.route(route);
  // Every declared link leads to a declared route, or the app does not start (a TypeError naming both).
  app.routes();
  return app;
}
appFrom.inject = ['config', 'logger', 'overrides', 'verifier', 'limiter', 'routes'] as const;

/**
 * The one place where the reference app is wired, with typed-inject: configuration, stores, the
 * token verifier, the limiter, the route modules and the app. Everything it uses comes from the
 * package's public exports.
 */
export function createReferenceApp(config: Config, logger: Logger, stores: StoreOverrides = {}): App {
  const observed = <S extends object>(store: S, system: keyof typeof DB_SYSTEM, name: string): S =>
    telemetryWanted(config, stores)
      ? storeTelemetry(store, { ...stores.telemetry, system: DB_SYSTEM[system], store: name })
      : store;
  return (
    createInjector()
      .provideValue('config', config)
      .provideValue('logger', logger)
      .provideValue('overrides', stores)
      .provideFactory('verifier', verifierFrom)
      .provideValue('bookStore', stores.bookStore ?? new MemoryBookStore())
      .provideValue('orderStore', stores.orderStore ?? new MemoryOrderStore())
      .provideValue('userStore', stores.userStore ?? new MemoryUserStore())
      .provideValue('standardStore', stores.standardStore ?? new MemoryStandardStore())
      // With telemetry, each store call a client span and a `db.client.operation.duration` sample.
      .provideValue(
        'idempotencyStore',
        observed(stores.idempotencyStore ?? memoryIdempotencyStore(), config.idempotencyStore, 'idempotency'),
      )
      .provideValue(
        'rateLimitStore',
        observed(stores.rateLimitStore ?? memoryRateLimitStore(), config.rateLimit.store, 'ratelimit'),
      )
      .provideValue('readinessChecks', stores.readinessChecks ?? [])
      .provideFactory('limiter', limiterFrom)
      .provideFactory('routes', featureRoutes)
      .provideFactory('app', appFrom)
      .resolve('app')
  );
}
