/**
 * The kit runs again and again against one live server, as CI runs it on every push: creates draw
 * fresh values for unique members, short rate-limit refusals are waited out, and a refusal by the
 * API's own quota that cannot be waited out is reported as the environment (exit 3), never as a
 * broken convention.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { serve } from '../../examples/reference-app/serve.js';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { runCheck } from '../support/check-cli.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/** Runs per property: five runs in a row stay within a few seconds a run. */
const RUNS = ['--runs', '3'];
const SCOPES = 'standards:read standards:write';

/** `--base` and two users' tokens that may write standards, as a team gives them. */
async function args(base: string): Promise<string[]> {
  const token = async (sub: string) => (await bearer(sub, SCOPES)).replace(/^Bearer /, '');
  return ['--base', base, '--token-a', await token('1'), '--token-b', await token('2')];
}

/** The CLI five times in a row against the server on `port`: no run fails, none is stopped by a quota. */
async function fiveRuns(port: number, more: (output: string, run: number) => void): Promise<void> {
  const base = await args(`http://127.0.0.1:${port}`);
  for (let run = 1; run <= 5; run++) {
    const { code, output } = await runCheck([...base, ...RUNS]);
    expect(output, `run ${run}`).not.toMatch(/^(FAIL|env)/m);
    more(output, run);
    expect(code, `run ${run}`).toBe(0);
  }
}

describe('rest-conventions check five times against one reference app on its defaults', async () => {
  // Its own rate limit (1 000 requests a minute) and idempotency budgets, two users who may write
  // standards (whose code is unique).
  const served = await serve('node', referenceApp({ RATE_LIMIT_MAX: '1000' }).app, 0);
  afterAll(() => served.close());

  it(
    'passes every run',
    () =>
      fiveRuns(served.port, (output, run) => {
        for (const id of ['idempotency', 'validators', 'idempotent-writes'])
          expect(output, `run ${run}`).toMatch(new RegExp(`^pass {2}${id}: .*POST /api/v1/standards`, 'm'));
      }),
    180_000,
  );
});

// Each example `npm run example` serves: the four frameworks' and the zod one.
describe.each(ALL_EXAMPLES)('rest-conventions check five times against one %s example', async (name) => {
  // The example on its defaults, rate limit included.
  const served = await serveExample(name, configFromEnv({ PORT: '0' }), 0);
  afterAll(() => served.close());

  it(
    'passes every run',
    () =>
      fiveRuns(served.port, (output, run) => expect(output, `run ${run}`).toMatch(/^pass {2}idempotency: /m)),
    120_000,
  );
});

describe("the API's own quotas are the environment", () => {
  it('a rate limit is waited out: every property passes', async () => {
    // 20 requests a second per user: the kit meets 429 with Retry-After: 1 many times.
    const served = await serve('node', referenceApp({ RATE_LIMIT_MAX: '20', RATE_LIMIT_WINDOW: '1' }).app, 0);
    try {
      const { code, output } = await runCheck([...(await args(`http://127.0.0.1:${served.port}`)), ...RUNS]);
      expect(output).not.toMatch(/^(FAIL|env)/m);
      expect(code).toBe(0);
    } finally {
      await served.close();
    }
  }, 120_000);

  it('an idempotency quota that is spent: "env", not FAIL, exit 3, a JUnit error', async () => {
    const store = memoryIdempotencyStore({ ownerMaxEntries: 3 });
    const served = await serve('node', referenceApp({}, { idempotencyStore: store }).app, 0);
    try {
      const base = await args(`http://127.0.0.1:${served.port}`);
      const { code, output } = await runCheck([...base, ...RUNS]);
      expect(output).not.toMatch(/^FAIL/m);
      expect(output).toMatch(
        /^env {3}idempotency: POST \/orders .*\n {6}not checked: the API's own quota refused the kit \(429 idempotency-quota-exceeded\)/m,
      );
      expect(output).toMatch(/^\d+ passed, 0 failed, \d+ not checked \(the API refused the kit\)$/m);
      expect(code).toBe(3);
      const junit = await runCheck([...base, ...RUNS, '--only', 'idempotency', '--reporter', 'junit']);
      expect(junit.output).toMatch(/<error type="quota" message="not checked: the API&apos;s own quota/);
      expect(junit.output).not.toMatch(/<failure/);
    } finally {
      await served.close();
    }
  }, 120_000);
});
