import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../examples/reference-app/config.js';

describe('the reference app’s data store settings', () => {
  it('keeps the data in memory with a pool of 10 unless told otherwise', () => {
    const config = configFromEnv({});
    expect(config.dataStore).toBe('memory');
    expect(config.databasePoolSize).toBe(10);
  });

  it('reads DATA_STORE=postgres and DATABASE_POOL_SIZE', () => {
    const config = configFromEnv({ DATA_STORE: 'postgres', DATABASE_POOL_SIZE: '25' });
    expect(config.dataStore).toBe('postgres');
    expect(config.databasePoolSize).toBe(25);
  });

  it.each([
    [{ DATA_STORE: 'mysql' }, /DATA_STORE must be one of memory\|postgres, got mysql/],
    [{ DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE must be a positive integer/],
    [{ DATABASE_POOL_SIZE: 'many' }, /DATABASE_POOL_SIZE must be a positive integer/],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(TypeError);
    expect(() => configFromEnv(env)).toThrow(message);
  });
});
