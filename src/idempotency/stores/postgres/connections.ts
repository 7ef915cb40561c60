import type { ConnectionPool, PooledConnection } from './types.js';

// Connections the store checks out of the application's pool and holds across statements.

// pg-pool listens to the `error` event of idle clients only: a held client whose connection
// breaks (PostgreSQL restarted mid-handler) would emit it with no listener and end the process.
// The failure reaches the store and the handler through their queries instead.
const ignore = () => {};

/** A connection of `pool`, held by the store until {@link giveBack}. */
export async function checkOut(pool: ConnectionPool): Promise<PooledConnection> {
  const client = await pool.connect();
  client.on?.('error', ignore);
  return client;
}

/** Back to the pool, or destroyed (`destroy`: a connection in an unknown state is never reused). */
export function giveBack(client: PooledConnection, destroy = false): void {
  if (!destroy) client.off?.('error', ignore);
  client.release(destroy);
}

/** Whether `value` is a pool the store can check connections out of (a `pg` Pool), not one connection. */
export function isPool(value: unknown): value is ConnectionPool {
  return (
    typeof (value as ConnectionPool).connect === 'function' &&
    typeof (value as ConnectionPool).totalCount === 'number'
  );
}
