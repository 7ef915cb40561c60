import net from 'node:net';

/** Where the real services run (the same defaults as the reference app). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a service's tests should run. Under `CI=true` an unreachable service is a failure (it
 * throws); elsewhere the tests skip and one line says why.
 */
export async function serviceAvailable(name: 'Redis' | 'PostgreSQL'): Promise<boolean> {
  const url = name === 'Redis' ? REDIS_URL : DATABASE_URL;
  const ok = await reachable(url, name === 'Redis' ? 6379 : 5432);
  if (ok) return true;
  const where = new URL(url).host;
  if (process.env.CI === 'true')
    throw new Error(`${name} is not reachable at ${where}, and CI=true requires it.`);
  console.warn(
    `skipping ${name} tests: ${name} is not reachable at ${where} (set ${name === 'Redis' ? 'REDIS_URL' : 'DATABASE_URL'})`,
  );
  return false;
}

/** A unique prefix per test run, so parallel test files never share keys or tables. */
export function uniquePrefix(label: string): string {
  return `${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
