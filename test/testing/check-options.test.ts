/**
 * What a team configures: a development profile without HSTS, relaxed headers, statuses the framework
 * answers itself, a config file, --only/--skip. Each against a real server, through the CLI's code.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { listen } from '../../examples/reference-app/serve.js';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { basicArgs, runCheck } from '../support/check-cli.js';
import { referenceApp } from '../support/reference-app.js';

type Handler = (request: Request) => Promise<Response>;

/** The reference app with `headers` taken out of every response. */
function without(...headers: string[]): Handler {
  const inner = toFetchHandler(referenceApp().app);
  return async (request) => {
    const response = await inner(request);
    const kept = new Headers(response.headers);
    for (const name of headers) kept.delete(name);
    const empty = response.status === 304 || response.status === 204;
    return new Response(empty ? null : response.body, { status: response.status, headers: kept });
  };
}

async function serveHandler(handler: Handler) {
  return listen(http.createServer(getRequestListener(handler)), 0);
}

const args = async (port: number, ...more: string[]) => [
  ...(await basicArgs(`http://127.0.0.1:${port}`)),
  '--runs',
  '5',
  ...more,
];

describe('rest-conventions check on plain HTTP without Strict-Transport-Security', async () => {
  const served = await serveHandler(without('strict-transport-security'));
  afterAll(() => served.close());

  it('fails documents in the default profile, naming the header', async () => {
    const { code, output } = await runCheck(await args(served.port, '--only', 'documents'));
    expect(output).toMatch(/security header strict-transport-security is missing/);
    expect(code).toBe(1);
  }, 30_000);

  it('passes with --profile development, and from a config file saying the same', async () => {
    expect(
      (await runCheck(await args(served.port, '--only', 'documents', '--profile', 'development'))).code,
    ).toBe(0);
    const config = join(await mkdtemp(join(tmpdir(), 'kit-config-')), 'conventions.json');
    await writeFile(config, JSON.stringify({ profile: 'development', only: ['documents'], runs: 5 }));
    const [, base, , a, , b] = await args(served.port);
    const { code, output } = await runCheck([
      '--config',
      config,
      '--base',
      base!,
      '--token-a',
      a!,
      '--token-b',
      b!,
    ]);
    expect(output).toMatch(/^pass {2}documents: /m);
    expect(output).not.toMatch(/^(pass|FAIL) {2}(?!documents)/m);
    expect(code).toBe(0);
  }, 30_000);
});

describe('rest-conventions check with --relax', async () => {
  const served = await serveHandler(without('cache-control'));
  afterAll(() => served.close());

  it('requires Cache-Control unless relaxed', async () => {
    const strict = await runCheck(await args(served.port, '--only', 'documents'));
    expect(strict.output).toMatch(/no Cache-Control/);
    expect(strict.code).toBe(1);
    expect(
      (await runCheck(await args(served.port, '--only', 'documents', '--relax', 'Cache-Control'))).code,
    ).toBe(0);
  }, 30_000);
});

describe('rest-conventions check against a framework that answers 414 before routing', () => {
  const documentWith = (declared: boolean) => ({
    openapi: '3.1.0',
    info: { title: 'long URLs', version: '1' },
    paths: {
      '/a': {
        get: {
          responses: {
            200: { description: 'A' },
            ...(declared ? { 414: { description: 'URI too long' } } : {}),
          },
        },
      },
      '/b/{id}': { get: { responses: { 200: { description: 'B' } } } },
    },
  });
  const server = async (declared: boolean) =>
    serveHandler(async (request) =>
      new URL(request.url).pathname === '/openapi.json'
        ? Response.json(documentWith(declared))
        : new Response(null, { status: 414 }),
    );

  it('accepts the 414 on every operation when the document declares it somewhere, not otherwise', async () => {
    const declared = await server(true);
    const silent = await server(false);
    try {
      const ok = await runCheck(await args(declared.port, '--only', 'bad-input'));
      expect(ok.output).toMatch(/^pass {2}bad-input: /m);
      const refused = await runCheck(await args(silent.port, '--only', 'bad-input'));
      expect(refused.output).toMatch(/status 414 is not declared/);
      expect(refused.code).toBe(1);
    } finally {
      await declared.close();
      await silent.close();
    }
  }, 30_000);
});

describe('rest-conventions check refuses what it cannot run', () => {
  it('names an unknown property, a bad reporter, a missing flag and a broken config file, exit 2', async () => {
    const base = ['--base', 'http://127.0.0.1:1', '--token-a', 'a', '--token-b', 'b'];
    const dir = await mkdtemp(join(tmpdir(), 'kit-config-'));
    await writeFile(join(dir, 'bad.json'), '{"colour": "blue"}');
    await writeFile(join(dir, 'document.json'), JSON.stringify({ openapi: '3.1.0', info: {}, paths: {} }));
    const document = ['--openapi', join(dir, 'document.json')];
    const cases: [string[], RegExp][] = [
      [[...base, ...document, '--only', 'documents,ownersihp'], /only names no property: "ownersihp"/],
      [[...base, '--reporter', 'tap'], /--reporter is text, json or junit, not "tap"/],
      [['--base', 'http://127.0.0.1:1', '--token-a', 'a'], /--base, --token-a and --token-b are required/],
      [[...base, '--config', join(dir, 'bad.json')], /unknown member "colour"/],
      [[...base, '--runs', 'many'], /--runs takes a number, not "many"/],
    ];
    for (const [given, message] of cases) {
      const { code, output } = await runCheck(given);
      expect(output, given.join(' ')).toMatch(message);
      expect(code).toBe(2);
    }
  });
});

describe('rest-conventions check against a server that cuts the connection', () => {
  it('fails with "no answer" and the request as curl, not a bare network error', async () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'cut', version: '1' },
      paths: { '/cut': { get: { responses: { 200: { description: 'never' } } } } },
    };
    const server = http.createServer((request, response) => {
      if (request.url === '/openapi.json') response.end(JSON.stringify(document));
      else request.socket.destroy();
    });
    const served = await listen(server, 0);
    try {
      const { code, output } = await runCheck(await args(served.port, '--only', 'documents'));
      expect(output).toMatch(/^FAIL {2}documents: /m);
      expect(output).toMatch(/no answer: fetch failed/);
      expect(output).toMatch(/curl -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/cut'/);
      expect(code).toBe(1);
    } finally {
      await served.close();
    }
  }, 30_000);
});
