import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, serviceAvailable } from '../support/services.js';

const redisUp = await serviceAvailable('Redis');
const root = fileURLToPath(new URL('../../', import.meta.url));
const main = fileURLToPath(new URL('../../examples/reference-app/main.ts', import.meta.url));

/** Run the reference app to its exit; what it printed on stderr and its exit code. */
function start(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      cwd: root,
      env: { ...process.env, AUTH_SECRET: 'a-test-secret-of-at-least-32-bytes!!', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Started after all: stop it, the test fails on the exit code.
      if (stdout.includes('listening')) child.kill('SIGKILL');
    });
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('start-up errors are one clear line (issue 18, item 10)', () => {
  for (const [store, env, name] of [
    [
      'PostgreSQL',
      { IDEMPOTENCY_STORE: 'postgres', DATABASE_URL: 'postgres://app:s3cretpw@127.0.0.1:1/test' },
      /PostgreSQL/,
    ],
    ['Redis', { IDEMPOTENCY_STORE: 'redis', REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1' }, /Redis/],
    [
      'Redis (rate limits)',
      { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1' },
      /Redis/,
    ],
  ] as const) {
    it(`exits non-zero with one line naming ${store}, the host and the reason, without password or stack`, async () => {
      const { code, stderr } = await start(env);
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(name);
      expect(lines[0]).toContain('127.0.0.1:1');
      expect(lines[0]).toMatch(/ECONNREFUSED|refused/i);
      expect(stderr).not.toContain('s3cretpw');
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr).not.toContain('[ioredis]');
    });
  }

  /** One line on stderr, exit 1, no stack and no client noise. */
  function expectOneLine({ code, stderr }: { code: number | null; stderr: string }): string {
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stderr).not.toContain('[ioredis]');
    return lines[0]!;
  }

  it('says a REDIS_CLUSTER_NODES node that does not answer is not reachable, and why', async () => {
    const line = expectOneLine(
      await start({ RATE_LIMIT_STORE: 'redis', REDIS_CLUSTER_NODES: '127.0.0.1:1' }),
    );
    expect(line).toMatch(/Redis is not reachable at cluster 127\.0\.0\.1:1: .*ECONNREFUSED/);
    expect(line).not.toContain('slots cache');
  });

  it.skipIf(!redisUp)(
    'says a REDIS_CLUSTER_NODES node that answers without cluster support is not a cluster',
    async () => {
      const { host } = new URL(REDIS_URL);
      const withPort = host.includes(':') ? host : `${host}:6379`;
      const line = expectOneLine(await start({ RATE_LIMIT_STORE: 'redis', REDIS_CLUSTER_NODES: withPort }));
      expect(line).toContain(
        `Redis at ${withPort} answers but is not a Redis Cluster (cluster_enabled:0); use REDIS_URL for a single node`,
      );
      expect(line).not.toContain('not reachable');
    },
  );

  it('names a bad setting in one line', async () => {
    const { code, stderr } = await start({ IDEMPOTENCY_STORE: 'mongo' });
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('IDEMPOTENCY_STORE');
  });
});
