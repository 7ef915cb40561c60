/** The README's first example (examples/readme/server.ts, the same text) run as a user runs it, then asked. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const SECRET = randomBytes(32).toString('base64url');

/** A port nothing listens on now: the example reads PORT and prints nothing to wait for. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function token(sub: string) {
  return new SignJWT({ sub, exp: Math.floor(Date.now() / 1000) + 3600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(SECRET));
}

describe("the README's first example", () => {
  let child: ChildProcess;
  let base: string;
  let output = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'examples/readme/server.ts'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), AUTH_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    // Ready once it answers; a process that exits first fails with what it printed.
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the example exited: ${output}`);
      const answered = await fetch(`${base}/notes/none`).then(
        () => true,
        () => false,
      );
      if (answered) break;
      await setTimeout(20); // between polls, so the poll does not take the core tsx starts on
    }
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });

  const post = async (body: string, headers: Record<string, string>) =>
    fetch(`${base}/notes`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('creates a note from a declared body, for a caller with a token, and reads it back', async () => {
    const authorization = `Bearer ${await token('7')}`;
    const created = await post(JSON.stringify({ body: 'Hello' }), { authorization });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toMatch(/^\/notes\/[0-9a-f-]{36}$/);
    const read = await fetch(`${base}${location}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ data: { type: 'notes', attributes: { body: 'Hello' } } });
  });

  it('answers 401 without a token, 400 for a body its codec refuses, 415 for another type, 404 for no note', async () => {
    const authorization = `Bearer ${await token('7')}`;
    expect((await post(JSON.stringify({ body: 'Hello' }), {})).status).toBe(401);
    const refused = await post(JSON.stringify({ body: 'x'.repeat(501) }), { authorization });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('/body');
    expect((await post(JSON.stringify({ body: 'Hello', extra: 1 }), { authorization })).status).toBe(400);
    expect((await post('body=Hello', { authorization, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await fetch(`${base}/notes/none`)).status).toBe(404);
  });
});
