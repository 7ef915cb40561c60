import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/**
 * The CLI from source as its own process. Node with tsx's loader, not the `tsx` command, which is a
 * Node process that starts another for the script: one process a run instead of two.
 */
function cli(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    const argv = ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), ...args];
    execFile(process.execPath, argv, { cwd: root }, (error, stdout) => {
      done({ code: error ? Number(error.code ?? 1) : 0, out: stdout });
    });
  });
}

const clean = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/books': {
      get: {
        responses: {
          200: { description: 'ok', headers: { 'Cache-Control': { description: 'c' } } },
          400: { description: 'bad', content: { 'application/problem+json': { schema: {} } } },
        },
      },
    },
  },
};
const broken = {
  ...clean,
  paths: {
    '/getBooks': {
      get: { parameters: [{ name: 'action', in: 'query' }], responses: { 200: { description: 'ok' } } },
    },
  },
};

describe('rest-conventions lint', () => {
  let dir: string;
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lint-cli-'));
    writeFileSync(join(dir, 'clean.json'), JSON.stringify(clean));
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(broken));
    writeFileSync(join(dir, 'not-json.json'), '{');
    server = http.createServer((_req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify(broken)),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    server.close();
  });

  it('exits 0 and says so when nothing is broken', async () => {
    const { code, out } = await cli('lint', join(dir, 'clean.json'));
    expect(code).toBe(0);
    expect(out).toContain('No findings.');
  });

  it('exits 1 with one line per finding, naming the rule and its docs', async () => {
    const { code, out } = await cli('lint', join(dir, 'broken.json'));
    expect(code).toBe(1);
    expect(out).toMatch(/GET \/getBooks {2}no-action-query: .*\(docs\/lint\.md#no-action-query\)/);
    expect(out).toContain('lowercase-hyphenated');
    expect(out).toContain('no-verbs');
    expect(out).toContain('get-caching-headers');
    expect(out).toContain('error-responses');
  });

  it('reads a document from a URL and honours --off', async () => {
    const { code, out } = await cli(
      'lint',
      url,
      '--off',
      'no-action-query,lowercase-hyphenated,no-verbs,get-caching-headers,error-responses',
    );
    expect(out).toContain('No findings.');
    expect(code).toBe(0);
  });

  it('exits 2 with a one-line reason for an unreadable document or an unknown rule', async () => {
    const unreadable = await cli('lint', join(dir, 'not-json.json'));
    expect(unreadable.code).toBe(2);
    expect(unreadable.out).toMatch(/^rest-conventions lint: .*is not JSON/);
    const missing = await cli('lint', join(dir, 'absent.json'));
    expect(missing.code).toBe(2);
    const unknown = await cli('lint', join(dir, 'clean.json'), '--off', 'no-such-rule');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toContain('Unknown rule "no-such-rule"');
  });
});
