/**
 * The examples of docs/ratelimit.md are what the library answers: each `http` block is a response
 * of a limiter with the page's policies, on a fixed clock (its fields and body, byte for byte), and
 * the problem type snippet throws what the page says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { isApiError } from '../../src/errors/api-error.js';
import { problemDocument } from '../../src/errors/error-document.js';
import { abnormalUsageDetectedError, rateLimit } from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';

const page = readFileSync(join(import.meta.dirname, '../../docs/ratelimit.md'), 'utf8');
const blocks = (lang: string) =>
  [...page.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);

interface Shown {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

function shown(block: string): Shown {
  const [head, body] = block.split('\n\n');
  const [statusLine, ...fields] = head!.trim().split('\n');
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body?.trim() };
}

const T0 = 1_760_000_000_000;

function limitedApp() {
  const app = createApp({
    use: [
      rateLimit({
        policies: [
          { name: 'burst', quota: 100, windowSeconds: 60 },
          { name: 'daily', quota: 10_000, windowSeconds: 86_400 },
        ],
        now: () => T0,
      }),
    ],
  });
  app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
  return app;
}

describe('the http examples of docs/ratelimit.md', () => {
  const [afterFiftyEight, refused, refusedProblem] = blocks('http').map(shown);

  it('are there', () => {
    expect([afterFiftyEight, refused, refusedProblem].every(Boolean)).toBe(true);
  });

  it('are what a limiter answers: the 58th request, then the 101st as JSON:API and as a problem document', async () => {
    const app = limitedApp();
    const get = (accept?: string) =>
      app.handle(requestView('GET', '/books', accept === undefined ? {} : { headers: { accept } }));
    const responses = [];
    for (let i = 0; i < 100; i++) responses.push(await get());
    const answers = [
      [afterFiftyEight!, responses[57]!],
      [refused!, await get()],
      [refusedProblem!, await get('application/vnd.api+json, application/problem+json')],
    ] as const;
    for (const [example, response] of answers) {
      expect(response.status).toBe(example.status);
      for (const [name, value] of Object.entries(example.headers)) expect(response.headers[name]).toBe(value);
      if (example.body !== undefined) expect(JSON.stringify(response.json)).toBe(example.body);
    }
  });
});

describe('the problem type snippet of docs/ratelimit.md', () => {
  it('throws a 429 abnormal-usage-detected naming the policy, with Retry-After', () => {
    const snippet = blocks('ts').find((b) => b.includes('abnormalUsageDetectedError({'))!;
    const body = snippet.replace(/^import .*$/m, '');
    let thrown: unknown;
    try {
      new Function('abnormalUsageDetectedError', body)(abnormalUsageDetectedError);
    } catch (error) {
      thrown = error;
    }
    expect(isApiError(thrown)).toBe(true);
    if (!isApiError(thrown)) return;
    expect(thrown.status).toBe(429);
    expect(thrown.headers['retry-after']).toBe('600');
    expect(problemDocument(thrown)).toMatchObject({
      'violated-policies': ['hourly'],
      title: 'Abnormal Usage Detected',
    });
  });
});
