/**
 * rest-conventions: the core pipeline plus every primitive. Import a subpath
 * (`rest-conventions/caching`, ...) to pull in only what you use.
 */
export * from './auth/index.js';
export * from './caching/index.js';
export * from './core/index.js';
export * from './deprecation/index.js';
export * from './envelope/index.js';
export * from './errors/index.js';
export * from './idempotency/index.js';
export * from './ownership/index.js';
export * from './ratelimit/index.js';
export * from './security/index.js';
export * from './validation/index.js';
export * from './versioning/index.js';
