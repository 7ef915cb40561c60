import { describe, expect, it } from 'vitest';
import { RUNTIME_SERVER_KINDS, runtimeEntry } from '../../bench/runtime-servers.js';
import { bundleForRuntime } from '../../bench/servers.js';

// `npm run bench` bundles each Bun and Deno server as a Worker module is bundled (no Node built-ins
// but those the runtimes provide); a module of the load generator's reached from a server's
// imports made the floors' bundle fail, and with it the whole run.
describe('the bench servers for Bun and Deno', () => {
  it.each(RUNTIME_SERVER_KINDS)('%s bundles as a Worker module', async (kind) => {
    await expect(bundleForRuntime(runtimeEntry(kind), `test-${kind}`)).resolves.toMatch(/\.mjs$/);
  });
});
