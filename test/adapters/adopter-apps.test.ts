/**
 * One adopter app per framework, built only from the code blocks of `docs/adapters.md` ("A described
 * API in your framework's router"): the blocks are extracted, compiled with tsc, served over a socket,
 * linted by the built `rest-conventions lint` and by Redocly's `recommended` rules (no error or
 * warning), and checked by the built `rest-conventions check` with only its documented flags. The page
 * cannot drift from what works.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getRequestListener } from '@hono/node-server';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../examples/reference-app/serve.js';
import { signHs256Token } from '../../src/auth/index.js';
import { scenarios, stderrLines } from '../hardening/client-disconnects.js';
import { ensureBuilt, root } from '../support/built-package.js';
import { compileBlocks, taggedBlocks, writeBlocks } from '../support/doc-blocks.js';

const run = promisify(execFile);
const SECRET = 'adopter-apps test secret, thirty-two bytes or more';

/** The `adopter:<file>` code blocks of the page, by file name. */
const adopterBlocks = () => taggedBlocks('adapters.md', 'adopter');

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  dir = writeBlocks(join(root, 'test', 'adapters'), '.adopter-', adopterBlocks());
  process.env.AUTH_SECRET = SECRET;
}, 600_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  delete process.env.AUTH_SECRET;
});

const cli = (...args: string[]) =>
  run(process.execPath, [join(root, 'dist', 'cli', 'main.js'), ...args], { cwd: root }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, out: error.stdout ?? '' }),
  );

/** Redocly's `recommended` rules on a document: each error and warning, as one line. */
async function redoclyProblems(text: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, config, absoluteRef: 'openapi.json' });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
}

async function serve(framework: string): Promise<Served & { server: http.Server }> {
  const { app } = await import(join(dir, `${framework}.ts`));
  switch (framework) {
    case 'express':
      return listen(http.createServer(app), 0);
    case 'koa':
      return listen(http.createServer(app.callback()), 0);
    case 'hono':
      return listen(http.createServer(getRequestListener(app.fetch)), 0);
    default: {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: app.server.address().port, server: app.server, close: () => app.close() };
    }
  }
}

describe('the adopter apps of docs/adapters.md', () => {
  it('has one block per framework and the shared one, and they compile (tsc --strict)', async () => {
    expect([...adopterBlocks().keys()].sort()).toEqual([
      'express.ts',
      'fastify.ts',
      'hono.ts',
      'koa.ts',
      'shop.ts',
    ]);
    expect(compileBlocks(dir)).toBe('');
  }, 300_000);

  for (const framework of ['express', 'fastify', 'koa', 'hono']) {
    // One server per app for both tests: a module's Fastify instance cannot listen again once closed.
    let served: Awaited<ReturnType<typeof serve>>;
    beforeAll(async () => {
      served = await serve(framework);
    });
    afterAll(() => served?.close());

    it(`${framework}: lints clean (its own linter, Redocly recommended) and passes rest-conventions check over a socket`, async () => {
      const base = `http://127.0.0.1:${served.port}`;
      const lint = await cli('lint', `${base}/openapi.json`);
      expect(lint.out).toContain('No findings.');
      expect(await redoclyProblems(await (await fetch(`${base}/openapi.json`)).text())).toEqual([]);
      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const [a, b] = await Promise.all(['alice', 'bob'].map((sub) => signHs256Token(SECRET, { sub })));
      // A resource's `data.id` goes back into the next path as it is.
      const book = await fetch(`${base}/books/1`);
      expect(book.status).toBe(200);
      expect((await book.json()).data.attributes.title).toBe('Kindred');
      const made = await fetch(`${base}/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a}`,
          'content-type': 'application/json',
          'idempotency-key': 'k-1',
        },
        body: JSON.stringify({ bookId: 1, quantity: 1 }),
      });
      expect(made.status).toBe(201);
      const { data } = (await made.json()) as { data: { id: string } };
      const read = await fetch(`${base}/orders/${data.id}`, { headers: { authorization: `Bearer ${a}` } });
      expect(read.status).toBe(200);
      const check = await cli(
        'check',
        ...['--base', base, '--token-a', a!, '--token-b', b!],
        ...['--create', '/orders={"bookId":1,"quantity":1}', '--runs', '5', '--seconds', '5', '--seed', '25'],
      );
      expect(check.code, check.out).toBe(0);
      expect(check.out).toMatch(/^\d+ passed, 0 failed$/m);
    }, 180_000);

    // Issue 41, finding 1: Koa's default error listener printed a stack for each client reset.
    it(`${framework}: logs nothing when a client resets, aborts or breaks the pipe`, async () => {
      const output = stderrLines();
      try {
        const token = `Bearer ${await signHs256Token(SECRET, { sub: 'alice' })}`;
        for (const leave of Object.values(scenarios(() => token))) {
          await leave(served);
          const after = await fetch(`http://127.0.0.1:${served.port}/books/1`);
          expect(after.status).toBe(200);
        }
        expect(output.lines).toEqual([]);
      } finally {
        output.restore();
      }
    });
  }
});
