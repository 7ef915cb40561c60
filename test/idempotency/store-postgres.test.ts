import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  type ConnectionPool,
  idempotencyTableDdl,
  postgresIdempotencyStore,
  type Queryable,
} from '../../src/idempotency/index.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { describeStoreContract } from './store-contract.js';

const available = await serviceAvailable('PostgreSQL');
const table = uniquePrefix('idem').toLowerCase();
let pool: pg.Pool | undefined;
let limited = 0;

describeStoreContract(
  'PostgreSQL',
  {
    before: async () => {
      pool = new pg.Pool({ connectionString: DATABASE_URL, max: 30 });
      await postgresIdempotencyStore({ pool, table }).migrate();
    },
    make: (now) => postgresIdempotencyStore({ pool: pool!, table, now }),
    makeLimited: async (now, limits) => {
      const store = postgresIdempotencyStore({ pool: pool!, table: `${table}_${++limited}`, now, ...limits });
      await store.migrate();
      return store;
    },
    totalBudgets: false,
    after: async () => {
      await pool?.query(`DROP TABLE IF EXISTS ${table}`);
      for (let i = 1; i <= limited; i++) await pool?.query(`DROP TABLE IF EXISTS ${table}_${i}`);
      await pool?.end();
    },
  },
  available,
);

// The same contract without prepared statements, through a pool that takes only `(text, values)`:
// what a pooler that cannot keep prepared statements sees.
const unprepared = `${table}_unprepared`;
let textPool: pg.Pool | undefined;
let unpreparedLimited = 0;

describeStoreContract(
  'PostgreSQL (preparedStatements: false)',
  {
    before: async () => {
      textPool = new pg.Pool({ connectionString: DATABASE_URL, max: 30 });
      await postgresIdempotencyStore({ pool: textPool, table: unprepared }).migrate();
    },
    make: (now) =>
      postgresIdempotencyStore({
        pool: textOnly(textPool!),
        table: unprepared,
        now,
        preparedStatements: false,
      }),
    makeLimited: async (now, limits) => {
      const store = postgresIdempotencyStore({
        pool: textOnly(textPool!),
        table: `${unprepared}_${++unpreparedLimited}`,
        now,
        preparedStatements: false,
        ...limits,
      });
      await store.migrate();
      return store;
    },
    totalBudgets: false,
    after: async () => {
      await textPool?.query(`DROP TABLE IF EXISTS ${unprepared}`);
      for (let i = 1; i <= unpreparedLimited; i++)
        await textPool?.query(`DROP TABLE IF EXISTS ${unprepared}_${i}`);
      await textPool?.end();
    },
  },
  available,
);

/**
 * `pool` whose queries and connections take the `(text, values)` form only: a named statement is
 * refused, as by a pooler that cannot keep prepared statements.
 */
function textOnly(pool: pg.Pool): ConnectionPool {
  const refuseNamed = (on: pg.Pool | pg.PoolClient) =>
    ((text: unknown, values?: unknown[]) => {
      if (typeof text !== 'string') throw new TypeError('this pool takes (text, values) only');
      return on.query(text, values);
    }) as Queryable['query'];
  return {
    query: refuseNamed(pool),
    connect: async () => {
      const client = await pool.connect();
      return {
        query: refuseNamed(client),
        release: (destroy?: boolean) => client.release(destroy),
        on: (event, listener) => client.on(event, listener),
        off: (event, listener) => client.off(event, listener),
      };
    },
    get totalCount() {
      return pool.totalCount;
    },
  };
}

describe('the PostgreSQL store, when configured', () => {
  it('refuses a table name that is not a plain identifier at start-up', () => {
    expect(() => idempotencyTableDdl('records; DROP TABLE x')).toThrow(TypeError);
    expect(() => postgresIdempotencyStore({ pool: new pg.Pool(), table: 'Bad-Name' })).toThrow(TypeError);
  });

  it('needs a Pool for the transactional mode', () => {
    expect(() => postgresIdempotencyStore({ pool: new pg.Client(), transactional: true })).toThrow(TypeError);
  });
});
