import type { Pool } from 'pg';

/** One versioned schema change. Applied once, in list order, inside its own transaction. */
export interface Migration {
  /** Unique and never renamed, e.g. `0002-orders`: the migrations table remembers it. */
  readonly id: string;
  /** The SQL to run (several statements allowed; no parameters). */
  readonly sql: string;
}

export interface MigrateOptions {
  readonly pool: Pool;
  /** Table prefix (`STORE_PREFIX`): the migrations table is `<prefix>_migrations`. */
  readonly prefix: string;
  readonly migrations: readonly Migration[];
}

const IDENTIFIER = /^[a-z][a-z0-9_]{0,40}$/;

/**
 * Apply the migrations not yet recorded in `<prefix>_migrations`, each in a transaction with its
 * record, and return the ids applied by this call. Several instances starting at once take turns
 * behind a session-level `pg_advisory_lock` keyed by the prefix, so each migration runs exactly once
 * and an instance serves only after the schema is complete (see docs/deployment.md).
 *
 * @example
 * await applyMigrations({ pool, prefix: 'reference_app', migrations: dataMigrations('reference_app') });
 */
export async function applyMigrations(options: MigrateOptions): Promise<readonly string[]> {
  const { pool, prefix, migrations } = options;
  if (!IDENTIFIER.test(prefix))
    throw new TypeError(`applyMigrations: prefix must be an SQL identifier, got ${prefix}`);
  const ids = new Set(migrations.map((m) => m.id));
  if (ids.size !== migrations.length) throw new TypeError('applyMigrations: migration ids must be unique');
  const table = `${prefix}_migrations`;
  const client = await pool.connect();
  // pg-pool listens to the 'error' event of idle clients only: a connection that breaks while the
  // migrations hold it would emit it unheard and end the process; the failing query reports it.
  const ignore = () => {};
  client.on('error', ignore);
  let healthy = true;
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [table]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set(
        (await client.query<{ id: string }>(`SELECT id FROM ${table}`)).rows.map((r) => r.id),
      );
      const applied: string[] = [];
      for (const migration of migrations) {
        if (done.has(migration.id)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query(`INSERT INTO ${table} (id) VALUES ($1)`, [migration.id]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${migration.id} failed`, { cause: error });
        }
        applied.push(migration.id);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [table]).catch(() => {
        healthy = false;
      });
    }
  } finally {
    // A connection whose unlock failed may still hold the lock: destroy it rather than reuse it.
    if (healthy) client.off('error', ignore);
    client.release(!healthy);
  }
}
