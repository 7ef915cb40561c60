import { describe, expect, expectTypeOf, it } from 'vitest';
import * as caching from '../../src/caching/index.js';
import * as idempotency from '../../src/idempotency/index.js';
import * as root from '../../src/index.js';

// Names replaced for one scheme (docs/api.md): store factories `<backend><Convention>Store`, error
// factories `<condition>Error`. The old names stay one release on their subpath, as the same function.
const RENAMED = [
  [caching, 'preconditionFailed', 'preconditionFailedError'],
  [caching, 'preconditionRequired', 'preconditionRequiredError'],
  [idempotency, 'memoryStore', 'memoryIdempotencyStore'],
  [idempotency, 'redisStore', 'redisIdempotencyStore'],
  [idempotency, 'postgresStore', 'postgresIdempotencyStore'],
] as const;

describe('renamed exports', () => {
  it.each(RENAMED)('%# the old name is the renamed function itself', (module, old, current) => {
    const exports = module as Record<string, unknown>;
    expect(typeof exports[current]).toBe('function');
    expect(exports[old]).toBe(exports[current]);
  });

  it('keeps no deprecated name at the root', () => {
    for (const [, old] of RENAMED) expect(root).not.toHaveProperty(old);
  });

  it('keeps the old option types as the new ones', () => {
    expectTypeOf<idempotency.MemoryStoreOptions>().toEqualTypeOf<idempotency.MemoryIdempotencyStoreOptions>();
    expectTypeOf<idempotency.RedisStoreOptions>().toEqualTypeOf<idempotency.RedisIdempotencyStoreOptions>();
    expectTypeOf<idempotency.PostgresStoreOptions>().toEqualTypeOf<idempotency.PostgresIdempotencyStoreOptions>();
  });

  it('gives the same answer through either name', () => {
    const error = caching.preconditionFailed('If-None-Match');
    expect(error).toEqual(caching.preconditionFailedError('If-None-Match'));
    expect(error.status).toBe(412);
  });
});
