/**
 * The code block of docs/idempotency.md, "PostgreSQL: the record in the handler's transaction", run
 * as written against the real PostgreSQL, in a schema of its own: a keyed PATCH loads and writes on
 * its claim's connection, so more of them at once than the pool has connections all answer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { versionEtag } from '../../src/caching/index.js';
import { postgresIdempotencyStore } from '../../src/idempotency/index.js';
import { requestView } from '../support/request.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');
const root = join(import.meta.dirname, '..', '..');

/** The block tagged `doc:one-connection.ts`. */
function documentedBlock(): string {
  const page = readFileSync(join(root, 'docs', 'idempotency.md'), 'utf8');
  const block = /```ts doc:one-connection\.ts\n([\s\S]*?)```/.exec(page)?.[1];
  if (block === undefined) throw new Error('docs/idempotency.md: no `doc:one-connection.ts` block');
  return block;
}

describe.runIf(available)('the one-connection example of docs/idempotency.md', () => {
  const schema = uniquePrefix('doc_one_conn').toLowerCase();
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  let dir: string;
  let documented: { readonly app: App; readonly pool: pg.Pool };
  const savedUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `CREATE TABLE ${schema}.orders (id int PRIMARY KEY, quantity int NOT NULL, version int NOT NULL)`,
    );
    await admin.query(`INSERT INTO ${schema}.orders SELECT g, 1, 1 FROM generate_series(1, 30) g`);
    await postgresIdempotencyStore({ pool: admin, table: `${schema}.idempotency_records` }).migrate();
    // The example reads DATABASE_URL: pointed at this test's schema.
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    process.env.DATABASE_URL = url.toString();
    dir = mkdtempSync(join(import.meta.dirname, '.doc-'));
    writeFileSync(join(dir, 'one-connection.ts'), documentedBlock());
    documented = await import(join(dir, 'one-connection.ts'));
  });
  afterAll(async () => {
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
    await documented?.pool.end();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  /** A keyed PATCH of an order still at its first version. */
  const patch = (id: number, key: string) =>
    documented.app.handle(
      requestView('PATCH', `/orders/${id}`, {
        headers: { 'idempotency-key': key, 'if-match': versionEtag(1) },
      }),
    );

  it('changes an order once under a key, and replays it', async () => {
    const first = await patch(1, '"doc-1"');
    expect(first.status).toBe(200);
    const replay = await patch(1, '"doc-1"');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const { rows } = await admin.query(`SELECT quantity FROM ${schema}.orders WHERE id = 1`);
    expect(rows[0].quantity).toBe(2);
  });

  it('answers three times as many keyed writes at once as the pool has connections', async () => {
    const answers = await Promise.all(Array.from({ length: 29 }, (_, i) => patch(i + 2, `"doc-burst-${i}"`)));
    expect(answers.map((a) => a.status)).toEqual(Array(29).fill(200));
  }, 30_000);
});
