import pg from 'pg';
import { DATABASE_URL } from './services.js';

/** Drop every table named `<prefix>_...`: what a test run created in the shared database. */
export async function dropTablesUnder(prefix: string, pool?: pg.Pool): Promise<void> {
  const db = pool ?? new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  try {
    const { rows } = await db.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE tablename LIKE $1',
      [`${prefix.replaceAll('_', '\\_')}\\_%`],
    );
    if (rows.length > 0) await db.query(`DROP TABLE IF EXISTS ${rows.map((r) => r.tablename).join(', ')}`);
  } finally {
    if (pool === undefined) await db.end();
  }
}
