import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, startProcess } from '../support/app-process.js';
import { basicArgs } from '../support/check-cli.js';
import { rawToken } from '../support/reference-kit.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `rest-conventions check ...` as a child process: its exit status and the lines it printed. */
async function check(args: string[]): Promise<{ code: number; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'check', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  return { code, lines: output.trimEnd().split('\n') };
}

/** A development token that may read the standards, so that the kit checks their QUERY too. */
const token = (sub: string) => rawToken(sub, 'standards:read');
const PROPERTY_LINE = /^(pass|FAIL) {2}\S/;

describe('rest-conventions check', () => {
  let app: AppProcess;
  beforeAll(async () => {
    app = await startProcess('examples/reference-app/main.ts', { RATE_LIMIT_MAX: '1000000' });
  }, 30_000);
  afterAll(() => app.stop());

  it('prints one line per property and "N passed, 0 failed", exit 0, against the reference app', async () => {
    const { code, lines } = await check([
      '--base',
      app.urls[0]!,
      '--token-a',
      await token('1'),
      '--token-b',
      await token('2'),
      '--create',
      '/orders={"bookId":1,"quantity":1}',
      '--update',
      '{"quantity":3}',
      '--runs',
      '10',
    ]);
    const properties = lines.filter((line) => PROPERTY_LINE.test(line));
    expect(lines.join('\n')).not.toMatch(/^FAIL/m);
    expect(properties.length).toBeGreaterThanOrEqual(8);
    expect(lines[0]).toMatch(/^seed \d+$/);
    expect(lines.at(-1)).toBe(`${properties.length} passed, 0 failed`);
    expect(code).toBe(0);
  }, 60_000);

  it('walks the links of the books list and of a new order with only --base and two tokens', async () => {
    const { code, lines } = await check([
      ...(await basicArgs(app.urls[0]!)),
      '--only',
      'links',
      '--runs',
      '1',
    ]);
    expect(
      lines.filter((line) => /^\w+ {2}links: /.test(line)),
      lines.join('\n'),
    ).toEqual([
      expect.stringMatching(/^pass {2}links: the links of GET \/books \(order\) /),
      expect.stringMatching(/^pass {2}links: the links of POST \/orders \(payment\) /),
    ]);
    expect(code).toBe(0);
  }, 60_000);
});

describe('rest-conventions check against a server that leaks stack traces', () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'leaky', version: '1' },
    paths: { '/things/{id}': { get: { responses: { 200: { description: 'A thing' } } } } },
  };
  const server = http.createServer((request, response) => {
    if (request.url === '/openapi.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(document));
      return;
    }
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('TypeError: thing is undefined\n    at getThing (/srv/app/things.js:12:7)\n');
  });
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fails the properties it breaks, shows the request and response, and exits 1', async () => {
    const { port } = server.address() as AddressInfo;
    const { code, lines } = await check([
      '--base',
      `http://127.0.0.1:${port}`,
      '--token-a',
      'a',
      '--token-b',
      'b',
      '--runs',
      '5',
    ]);
    const output = lines.join('\n');
    expect(output).toMatch(/^FAIL {2}documents: every response is a convention document/m);
    expect(output).toMatch(/the body contains a stack trace/);
    expect(output).toMatch(/request: GET \/things\//);
    expect(lines.at(-1)).toMatch(/^\d+ passed, [1-9]\d* failed$/);
    expect(code).toBe(1);
    // The failure's curl command, run by a shell and curl, gets the response the report shows.
    const curl = lines.find((line) => /^ +curl -i -X GET /.test(line))!.trim();
    // Asynchronously: the server answering it runs in this process.
    const replayed = await promisify(execFile)('sh', ['-c', curl], { encoding: 'utf8', timeout: 10_000 });
    expect(replayed.stdout).toMatch(/^HTTP\/1\.1 500/);
    expect(replayed.stdout).toMatch(/at getThing \(\/srv\/app\/things\.js:12:7\)/);
  }, 60_000);

  it('reports as JSON and as JUnit XML that a JUnit reader parses, exit 1 on the failure', async () => {
    const { port } = server.address() as AddressInfo;
    const base = ['--base', `http://127.0.0.1:${port}`, '--token-a', 'a', '--token-b', 'b', '--runs', '3'];
    const json = await check([...base, '--only', 'documents,safe-methods', '--reporter', 'json']);
    const report = JSON.parse(json.lines.join('\n')) as {
      passed: boolean;
      properties: { id: string; passed: boolean; message?: string }[];
    };
    expect(report.passed).toBe(false);
    expect(report.properties.map((p) => [p.id, p.passed])).toEqual([
      ['documents', false],
      ['safe-methods', true],
    ]);
    expect(report.properties[0]!.message).toMatch(/curl -i -X GET/);
    expect(json.code).toBe(1);

    const junit = await check([...base, '--skip', 'rate-limits', '--reporter', 'junit']);
    expect(junit.code).toBe(1);
    // Python's XML parser reads what a CI server would: one testcase per property, the failure inside.
    const read = spawnSync(
      'python3',
      [
        '-c',
        'import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.stdin.read()); print(len(list(r.iter("testcase"))), len(list(r.iter("failure"))))',
      ],
      { input: junit.lines.join('\n'), encoding: 'utf8' },
    );
    expect(read.stderr).toBe('');
    const [cases, failures] = read.stdout.trim().split(' ').map(Number);
    // documents, bad-input and safe-methods: rate-limits skipped.
    expect(cases).toBe(3);
    expect(failures).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
