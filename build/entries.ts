/**
 * The package's public entry points: the root and one subpath per primitive. `tsup.config.ts` builds
 * them and `test/package/exports.test.ts` checks that package.json's `exports` map matches.
 */
export const SUBPATHS = [
  'core',
  'errors',
  'envelope',
  'validation',
  'security',
  'cors',
  'auth',
  'ownership',
  'caching',
  'idempotency',
  'versioning',
  'deprecation',
  'ratelimit',
  'openapi',
  'lint',
  'testing',
  'opentelemetry',
  'adapters/node',
  'adapters/fetch',
  'adapters/express',
  'adapters/fastify',
  'adapters/koa',
  'adapters/hono',
] as const;

/** Subpaths that drive a host framework: each imports its framework (an optional peer) and nothing else does. */
export const FRAMEWORK_SUBPATHS = [
  'adapters/express',
  'adapters/fastify',
  'adapters/koa',
  'adapters/hono',
] as const;

/**
 * Subpaths whose declarations name an optional peer's types (`testing`: fast-check's arbitraries; `opentelemetry`: `@opentelemetry/api`'s providers):
 * a consumer imports them only with that peer installed.
 */
export const PEER_TYPED_SUBPATHS = ['testing', 'opentelemetry'] as const;

export function entryPoints(): Record<string, string> {
  const entries: Record<string, string> = { index: 'src/index.ts' };
  for (const subpath of SUBPATHS) {
    // node and fetch are one module each (`src/adapters/node.ts`); a framework's adapter is a folder.
    entries[`${subpath}/index`] =
      subpath.startsWith('adapters/') && !(FRAMEWORK_SUBPATHS as readonly string[]).includes(subpath)
        ? `src/${subpath}.ts`
        : `src/${subpath}/index.ts`;
  }
  return entries;
}
