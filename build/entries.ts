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
  'auth',
  'ownership',
  'caching',
  'idempotency',
  'versioning',
  'deprecation',
  'ratelimit',
  'openapi',
  'lint',
  'adapters/node',
  'adapters/fetch',
] as const;

export function entryPoints(): Record<string, string> {
  const entries: Record<string, string> = { index: 'src/index.ts' };
  for (const subpath of SUBPATHS) {
    entries[`${subpath}/index`] = subpath.startsWith('adapters/')
      ? `src/${subpath}.ts`
      : `src/${subpath}/index.ts`;
  }
  return entries;
}
