import { type App, createApp, type Logger } from 'rest-conventions';
import { authenticate, hs256Verifier, type TokenVerifier } from 'rest-conventions/auth';
import { securityHeaders } from 'rest-conventions/security';
import { createInjector } from 'typed-inject';
import { MemoryBookStore } from './books/book-store.js';
import { BooksRoutes } from './books/books-routes.js';
import type { Config } from './config.js';
import { MemoryOrderStore } from './orders/order-store.js';
import { OrdersRoutes } from './orders/orders-routes.js';
import { MemoryUserStore } from './users/user-store.js';

function verifierFrom(config: Config): TokenVerifier {
  return hs256Verifier({ secret: config.authSecret });
}
verifierFrom.inject = ['config'] as const;

/**
 * The one place where the reference app is wired: configuration, stores, the token verifier and
 * the route modules. Everything it uses comes from the package's public exports.
 */
export function createReferenceApp(config: Config, logger: Logger): App {
  const injector = createInjector()
    .provideValue('config', config)
    .provideValue('logger', logger)
    .provideFactory('verifier', verifierFrom)
    .provideClass('bookStore', MemoryBookStore)
    .provideFactory('orderStore', () => new MemoryOrderStore())
    .provideClass('userStore', MemoryUserStore)
    .provideClass('booksRoutes', BooksRoutes)
    .provideClass('ordersRoutes', OrdersRoutes);

  const app = createApp({
    logger,
    use: [securityHeaders(), authenticate({ verifier: injector.resolve('verifier') })],
  });
  injector.resolve('booksRoutes').register(app);
  injector.resolve('ordersRoutes').register(app);
  return app;
}
