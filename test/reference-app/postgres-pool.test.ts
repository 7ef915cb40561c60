import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../examples/reference-app/database/migration-runner.js';
import { dataMigrations, idempotencyMigration } from '../../examples/reference-app/database/migrations.js';
import { postgresDataStores } from '../../examples/reference-app/database/postgres-data-stores.js';
import { postgresIdempotencyStore } from '../../src/idempotency/index.js';
import { fetchClient, type TestClient } from '../support/clients.js';
import { dropTablesUnder } from '../support/postgres.js';
import { bearer, referenceApp } from '../support/reference-app.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');

/**
 * With the order and its idempotency record in one transaction, a request holds one pooled
 * connection from its claim to its response. Everything the handler reads goes through that same
 * connection: more concurrent keyed POSTs than the pool has connections all complete, where a second
 * connection per request (the book lookup) deadlocked a full pool.
 */
describe.runIf(available)('keyed POST /orders on PostgreSQL with a small pool', () => {
  const prefix = uniquePrefix('pool').toLowerCase();
  let pool: pg.Pool;
  let client: TestClient;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const table = `${prefix}_idempotency`;
    await applyMigrations({
      pool,
      prefix,
      migrations: [...dataMigrations(prefix), idempotencyMigration(table)],
    });
    const { app } = referenceApp(
      // The store call bound raised from 2 s: this is about a full pool never deadlocking, and on a
      // loaded machine the last of 12 requests sharing 2 connections can wait longer than 2 s.
      { STORE_PREFIX: prefix, IDEMPOTENCY_STORE_TIMEOUT_MS: '60000' },
      {
        ...postgresDataStores(pool, prefix),
        idempotencyStore: postgresIdempotencyStore({ pool, table, transactional: true }),
      },
    );
    client = await fetchClient(app);
  });
  afterAll(async () => {
    await client?.close();
    await dropTablesUnder(prefix, pool);
    await pool?.end();
  });

  it('completes six times more requests at once than the pool has connections, each once', async () => {
    const token = await bearer('1');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.request('POST', '/orders', {
          headers: {
            authorization: token,
            'content-type': 'application/json',
            'idempotency-key': `pool-${prefix}-${i}`,
          },
          body: JSON.stringify({ bookId: 1, quantity: 1 }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(new Set(answers.map((a) => a.headers.location)).size).toBe(12);
  }, 20_000);
});
