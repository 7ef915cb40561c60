/**
 * `rest-conventions check` with nothing but the base URL and two tokens: everything else comes from
 * the document. It must pass the reference app on every adapter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS, serve } from '../../examples/reference-app/serve.js';
import { basicArgs, runCheck } from '../support/check-cli.js';
import { referenceApp } from '../support/reference-app.js';

/** Few runs per property: `npm test` stays fast; the fixed seed keeps it the same on every run. */
const CLI_RUNS = ['--runs', '4'];

describe.each(ADAPTERS)('rest-conventions check against the reference app served by %s', async (adapter) => {
  const served = await serve(adapter, referenceApp().app, 0);
  afterAll(() => served.close());

  it('passes every property with only --base, --token-a and --token-b', async () => {
    const { code, output } = await runCheck([
      ...(await basicArgs(`http://127.0.0.1:${served.port}`)),
      ...CLI_RUNS,
    ]);
    expect(output).not.toMatch(/^FAIL/m);
    for (const id of [
      'idempotency',
      'validators',
      'idempotent-writes',
      'ownership',
      'versions',
      'deprecation',
    ])
      expect(output).toMatch(new RegExp(`^pass {2}${id}: `, 'm'));
    expect(code).toBe(0);
  }, 60_000);
});
