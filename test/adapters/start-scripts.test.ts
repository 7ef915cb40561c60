import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
/** What the last started script wrote to stderr so far. */
let stderr = '';

/** Starts a script with tsx on a free port and resolves with its first stdout line. */
async function start(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<string> {
  const all: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    AUTH_SECRET: 'a-test-secret-of-at-least-thirty-two-bytes',
    ...env,
  };
  for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: all,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  while (!out.includes('\n')) {
    const [chunk] = (await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')])) as [string];
    if (typeof chunk !== 'string') throw new Error(`${script} exited before listening`);
    out += chunk;
  }
  return out.split('\n')[0]!;
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});

describe('start scripts', () => {
  it('ADAPTER=fastify npm start names the adapter and serves', async () => {
    const line = await start('examples/reference-app/main.ts', [], { ADAPTER: 'fastify' });
    const match = /^rest-conventions reference app listening on http:\/\/localhost:(\d+) \(fastify\)$/.exec(
      line,
    );
    expect(match, line).not.toBeNull();
    expect((await fetch(`http://127.0.0.1:${match![1]}/books/1`)).status).toBe(200);
  }, 60_000);

  it('npm run example -- koa serves the bookshop', async () => {
    const line = await start('examples/run.ts', ['koa'], {});
    const match = /listening on http:\/\/localhost:(\d+)$/.exec(line);
    expect(match, line).not.toBeNull();
    const response = await fetch(`http://127.0.0.1:${match![1]}/books/2`);
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
  }, 60_000);

  it('npm run example warns when it signs with the development secret, and only then', async () => {
    await start('examples/run.ts', ['hono'], { AUTH_SECRET: undefined });
    expect(stderr).toContain('AUTH_SECRET is not set: using the documented development secret.');
    await start('examples/run.ts', ['hono'], {});
    expect(stderr).toBe('');
  }, 60_000);
});
