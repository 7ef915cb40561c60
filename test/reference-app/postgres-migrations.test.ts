import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { BOOK_SEED } from '../../examples/reference-app/books/book-store.js';
import { applyMigrations } from '../../examples/reference-app/database/migration-runner.js';
import { dataMigrations } from '../../examples/reference-app/database/migrations.js';
import { DEFAULT_USERS } from '../../examples/reference-app/users/user-store.js';
import { dropTablesUnder } from '../support/postgres.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');
const INSTANCES = 6;

describe.skipIf(!available)('the reference app’s migrations', () => {
  const prefix = uniquePrefix('mig').toLowerCase();
  // One pool per simulated instance: each takes the advisory lock on its own connection.
  const pools = Array.from(
    { length: INSTANCES },
    () => new pg.Pool({ connectionString: DATABASE_URL, max: 2 }),
  );
  const pool = pools[0]!;

  afterAll(async () => {
    await dropTablesUnder(prefix, pool);
    await Promise.all(pools.map((p) => p.end()));
  });

  it(`applies each migration exactly once when ${INSTANCES} instances start at the same time`, async () => {
    const migrations = dataMigrations(prefix);
    const results = await Promise.all(pools.map((p) => applyMigrations({ pool: p, prefix, migrations })));
    // Every start succeeded; together they applied every migration once, in order, and no more.
    const applied = results.flat();
    expect(applied).toEqual(migrations.map((m) => m.id));
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    const recorded = await pool.query<{ id: string }>(`SELECT id FROM ${prefix}_migrations ORDER BY id`);
    expect(recorded.rows.map((r) => r.id)).toEqual(migrations.map((m) => m.id));
  });

  it('seeds the same books and users as the in-memory stores, once', async () => {
    const books = await pool.query(`SELECT id, title, author FROM ${prefix}_books ORDER BY id`);
    expect(books.rows).toEqual(BOOK_SEED.map(({ id, title, author }) => ({ id, title, author })));
    const users = await pool.query(`SELECT id FROM ${prefix}_users ORDER BY id`);
    expect(users.rows.map((r) => r.id)).toEqual(DEFAULT_USERS.map((u) => u.id));
  });

  it('applies nothing on a restart, and only what is new when a migration is added', async () => {
    const migrations = dataMigrations(prefix);
    expect(await applyMigrations({ pool, prefix, migrations })).toEqual([]);
    const added = { id: '9999-test-extra', sql: `CREATE TABLE ${prefix}_extra (id integer)` };
    expect(await applyMigrations({ pool, prefix, migrations: [...migrations, added] })).toEqual([added.id]);
  });

  it('rolls a failing migration back whole and names it, leaving it to run again', async () => {
    const broken = {
      id: '9998-broken',
      sql: `CREATE TABLE ${prefix}_half (id integer); SELECT nonsense_column`,
    };
    await expect(applyMigrations({ pool, prefix, migrations: [broken] })).rejects.toThrow(/9998-broken/);
    const half = await pool.query('SELECT 1 FROM pg_tables WHERE tablename = $1', [`${prefix}_half`]);
    expect(half.rowCount).toBe(0);
    const recorded = await pool.query(`SELECT 1 FROM ${prefix}_migrations WHERE id = $1`, [broken.id]);
    expect(recorded.rowCount).toBe(0);
  });

  it('fails with the migration named when its connection breaks, and the process stays up', async () => {
    const slow = { id: '9997-slow', sql: 'SELECT pg_sleep(5)' };
    const running = applyMigrations({ pool, prefix, migrations: [slow] });
    // Its rejection can come while the loop below still waits for its own query: hold it at once,
    // so it is never an unhandled rejection.
    const failed = expect(running).rejects.toThrow(/9997-slow/);
    // Another session ends the migrating backend while it sleeps.
    let ended = 0;
    for (let i = 0; i < 200 && ended === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const { rows } = await pools[1]!.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE query = $1`,
        [slow.sql],
      );
      ended = rows.length;
    }
    expect(ended).toBe(1);
    await failed;
    const recorded = await pool.query(`SELECT 1 FROM ${prefix}_migrations WHERE id = $1`, [slow.id]);
    expect(recorded.rowCount).toBe(0);
  });

  it('refuses a prefix that is not an SQL identifier', async () => {
    await expect(applyMigrations({ pool, prefix: 'x; DROP', migrations: [] })).rejects.toThrow(TypeError);
  });
});
