import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { bearer, referenceApp } from '../support/reference-app.js';

const root = resolve(import.meta.dirname, '..', '..');

interface Example {
  readonly file: string;
  readonly command: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Every `curl` command in the README and docs/, with its continuation lines joined. */
function curlExamples(): Example[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const examples: Example[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8').replace(/\\\n\s*/g, ' ');
    for (const line of text.split('\n')) {
      const at = line.indexOf('curl ');
      // Inline code ends the command: `curl ...` inside a sentence.
      if (at === -1 || !/localhost:\d+/.test(line)) continue;
      examples.push(parseCurl(file, line.slice(at).trim()));
    }
  }
  return examples;
}

/** The parts of a curl command line the examples use: -X, -H, -d and the URL. */
function parseCurl(file: string, command: string): Example {
  const words = [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  let method = 'GET';
  let url = '';
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-X') method = words[++i]!;
    else if (word === '-H') {
      const header = words[++i]!;
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data') {
      body = words[++i]!;
      if (method === 'GET') method = 'POST';
    } else if (/localhost:\d+/.test(word)) url = word.replace(/[`,;)]+$/, '');
  }
  return {
    file,
    command,
    method,
    path: url.replace(/^(https?:\/\/)?localhost:\d+/, ''),
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

describe('the example requests in README.md and docs/', () => {
  const examples = curlExamples();
  const { app } = referenceApp();
  const handle = toFetchHandler(app);
  let token: string;
  beforeAll(async () => {
    token = (await bearer('1', 'standards:read')).slice('Bearer '.length);
  });

  it('are there to run', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  // In document order: an order is created before it is read and deleted, as a reader would run them.
  it.each(examples.map((e) => [`${e.file}: ${e.command}`, e] as const))('%s', async (_name, example) => {
    const headers = Object.fromEntries(
      Object.entries(example.headers).map(([k, v]) => [k, v.replaceAll('$TOKEN', token)]),
    );
    const response = await handle(
      new Request(`http://localhost${example.path}`, {
        method: example.method,
        headers,
        ...(example.body === undefined ? {} : { body: example.body }),
      }),
      { remoteAddress: '127.0.0.1' },
    );
    expect(response.status, await response.clone().text()).toBeLessThan(400);
  });
});
