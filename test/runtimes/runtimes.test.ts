import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../support/built-package.js';
import { type Answer, answerOf, type Exchange, referenceAppExchanges } from '../support/exchanges.js';
import { bearer } from '../support/reference-app.js';
import {
  bundleWorker,
  RUNTIMES,
  type RuntimeName,
  runtimeBinary,
  startRuntime,
  WORKER_BUNDLE_FLAGS,
} from '../support/runtimes.js';

/** The adapter suite's exchanges: books, conditional GET, orders with idempotency and ownership, errors. */
async function exchanges(): Promise<Exchange[]> {
  const alice = await bearer('alice-runtimes');
  const bob = await bearer('bob-runtimes');
  const user1 = await bearer('1');
  const reader = await bearer('1', 'standards:read');
  const writer = await bearer('1', 'standards:read standards:write');
  return [
    ...referenceAppExchanges(alice, bob),
    { method: 'GET', path: '/books?author=Italo%20Calvino', headers: { 'accept-encoding': 'gzip, br' } },
    // Versioning and deprecation, nested ownership, a moved URL, cursor pages, field errors.
    { method: 'GET', path: '/v1/users/1', headers: { authorization: user1 } },
    { method: 'GET', path: '/v2/users/1', headers: { authorization: user1 } },
    { method: 'GET', path: '/users/2/orders', headers: { authorization: user1 } },
    { method: 'GET', path: '/users/1/accountType?x=1' },
    { method: 'GET', path: '/api/v1/standards/?page[size]=2&sort=-code', headers: { authorization: reader } },
    {
      method: 'POST',
      path: '/api/v1/standards/',
      headers: { authorization: writer, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'standards', attributes: { code: 'x', name: 7, extra: true } } }),
    },
  ];
}

const requestInit = (e: Exchange): RequestInit => ({
  method: e.method,
  redirect: 'manual',
  ...(e.headers === undefined ? {} : { headers: e.headers }),
  ...(e.body === undefined ? {} : { body: e.body }),
});

let dir: string;
let sent: Exchange[];
let node: Answer[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rc-runtimes-'));
  const bundle = await bundleWorker(dir);
  sent = await exchanges();
  // Node: the same bundle, its fetch handler called in this process, from the loopback address.
  const { handler } = (await import(pathToFileURL(bundle).href)) as {
    handler(request: Request, info: { remoteAddress: string }): Promise<Response>;
  };
  node = [];
  for (const e of sent) {
    const request = new Request(`http://127.0.0.1${e.path}`, requestInit(e));
    node.push(await answerOf(await handler(request, { remoteAddress: '127.0.0.1' })));
  }
}, 300_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the bundled Worker on Node', () => {
  it('answers the adapter suite as the reference app does', () => {
    expect(node.map((a) => a.status)).toEqual([
      200, 200, 304, 200, 200, 404, 405, 204, 406, 201, 201, 422, 200, 404, 401, 400, 200, 200, 200, 403, 308,
      200, 400,
    ]);
    expect(node[9]!.headers.location).toBe('/orders/1');
    expect(node[10]!.body).toBe(node[9]!.body);
  });
});

describe.each(RUNTIMES)('the bundled Worker on %s', (runtime: RuntimeName) => {
  const binary = runtimeBinary(runtime);
  // Under CI a missing runtime fails the run; elsewhere (another platform) it is skipped.
  const runOrSkip = binary === undefined && process.env.CI !== 'true' ? it.skip : it;

  runOrSkip('gives the same status, headers and body bytes as on Node', async () => {
    expect(binary, `the ${runtime} binary from its npm package`).toBeDefined();
    const running = await startRuntime(runtime, binary!, dir);
    try {
      const answers: Answer[] = [];
      for (const e of sent)
        answers.push(
          await answerOf(
            await fetch(`${running.origin}${e.path}`, {
              ...requestInit(e),
              signal: AbortSignal.timeout(10_000),
            }),
          ),
        );
      for (let i = 0; i < sent.length; i++)
        expect(answers[i], `${sent[i]!.method} ${sent[i]!.path}`).toEqual(node[i]);
      // Bun and Deno pass the client's address beside the request, in their own shapes, and the
      // handler reads it: no warning that anonymous callers share one bucket. Locally workerd has no
      // CF-Connecting-IP to pass, and says so once.
      const warned = running.output().split('no client address').length - 1;
      expect(warned).toBe(runtime === 'workerd' ? 1 : 0);
    } finally {
      await running.stop();
    }
  });
});

describe('docs/runtimes.md', () => {
  const docs = readFileSync(join(root, 'docs', 'runtimes.md'), 'utf8');
  const blocks = (lang: string) =>
    [...docs.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
  const fixture = (file: string) => readFileSync(join(root, 'test', 'runtimes', 'fixtures', file), 'utf8');

  it('shows exactly the files this suite serves the app with on Bun, Deno and workerd', () => {
    expect(blocks('js')).toEqual([fixture('bun-serve.js'), fixture('deno-serve.js')]);
    expect(blocks('capnp')).toEqual([fixture('workerd.capnp')]);
    const [worker] = blocks('ts');
    expect(fixture('worker.ts').endsWith(worker!)).toBe(true);
  });

  it('bundles a Worker with the options this suite bundles it with', () => {
    const command = blocks('sh')[0]!.replace(/\\\n\s*/g, ' ');
    for (const flag of WORKER_BUNDLE_FLAGS) expect(command.split(/\s+/)).toContain(flag);
  });
});
