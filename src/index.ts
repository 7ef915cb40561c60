/**
 * rest-conventions: the core pipeline plus every primitive. Import a subpath
 * (`rest-conventions/caching`, ...) to pull in only what you use.
 */
export * from './auth/index.js';
export * from './core/index.js';
export * from './envelope/index.js';
export * from './errors/index.js';
export * from './security/index.js';
export * from './validation/index.js';
