/**
 * The CLI with nothing but the base URL and two tokens, against deliberately broken variants of the
 * reference app served over a socket: each must fail exactly its property, with the request as a
 * `curl` command and the response.
 */
import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { listen } from '../../examples/reference-app/serve.js';
import { basicArgs, runCheck } from '../support/check-cli.js';
import { rawToken } from '../support/reference-kit.js';
import { BROKEN_VARIANTS } from './broken-variants.js';

describe.each(BROKEN_VARIANTS)('rest-conventions check against $name', async (variant) => {
  const served = await listen(http.createServer(getRequestListener(variant.handler())), 0);
  afterAll(() => served.close());

  it(`fails ${variant.property}, and no other property, showing the request as curl`, async () => {
    const { code, output } = await runCheck([
      ...(await basicArgs(`http://127.0.0.1:${served.port}`)),
      '--runs',
      process.env.VARIANT_RUNS ?? '30',
    ]);
    const failed = [...output.matchAll(/^FAIL {2}([\w-]+):/gm)].map((m) => m[1]);
    expect([...new Set(failed)], output).toEqual([variant.property]);
    if (variant.violation !== undefined) expect(output).toMatch(variant.violation);
    expect(output).toMatch(/^ {6}request: [A-Z]+ \/.*\n {8}curl -i -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\//m);
    expect(output).toMatch(/^ {6}response: \d{3}$/m);
    expect(code).toBe(1);
  }, 60_000);
});

// Found by `npm run test:explore` (seed 1838968686): the 429 variant kept the app's Content-Length
// for its own, shorter body, so clients saw the connection cut ("terminated") on other properties.
describe('the 429 variant (a regression case)', async () => {
  const variant = BROKEN_VARIANTS.find((v) => v.name.startsWith('a 429 without Retry-After'))!;
  const served = await listen(http.createServer(getRequestListener(variant.handler())), 0);
  afterAll(() => served.close());

  it('answers the fifth identical GET with a whole 429 document', async () => {
    const authorization = `Bearer ${await rawToken('1')}`;
    let last: Response | undefined;
    for (let i = 0; i < 5; i++)
      last = await fetch(`http://127.0.0.1:${served.port}/books`, { headers: { authorization } });
    expect(last!.status).toBe(429);
    expect(await last!.json()).toEqual({ errors: [{ status: '429', title: 'Too Many Requests' }] });
  });
});
