/**
 * The CLI with nothing but the base URL and two tokens, against deliberately broken variants of the
 * reference app served over a socket: each must fail exactly its property, with the request as a
 * `curl` command and the response.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { listen } from '../../examples/reference-app/serve.js';
import { runCheck } from '../support/check-cli.js';
import { rawToken } from '../support/reference-kit.js';
import { BROKEN_VARIANTS } from './broken-variants.js';

describe.each(BROKEN_VARIANTS)('rest-conventions check against $name', async (variant) => {
  const served = await listen(http.createServer(getRequestListener(variant.handler())), 0);
  afterAll(() => served.close());

  it(`fails ${variant.property}, and no other property, showing the request as curl`, async () => {
    const { code, output } = await runCheck([
      '--base',
      `http://127.0.0.1:${served.port}`,
      '--token-a',
      await rawToken('1'),
      '--token-b',
      await rawToken('2'),
      '--runs',
      process.env.VARIANT_RUNS ?? '30',
    ]);
    const failed = [...output.matchAll(/^FAIL {2}([\w-]+):/gm)].map((m) => m[1]);
    expect([...new Set(failed)], output).toEqual([variant.property]);
    expect(output).toMatch(/^ {6}request: [A-Z]+ \/.*\n {8}curl -i -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\//m);
    expect(output).toMatch(/^ {6}response: \d{3}$/m);
    expect(code).toBe(1);
  }, 60_000);
});
