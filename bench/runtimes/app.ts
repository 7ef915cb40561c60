/**
 * The reference app on Bun or Deno: the composition root, settings and stores the bench runs on
 * Node (`examples/reference-app/main.ts` with memory stores: the idempotency store within the
 * configured budgets, its claims held for shutdown), through `toFetchHandler` on the runtime's own
 * server, bundled as a Worker module is (bench/servers.ts). The handler is given what the runtime
 * passes beside the request (Bun's server, Deno's serve info), as a Bun or Deno program does: it reads
 * the client's address from it when a layer needs it.
 */
import { toFetchHandler } from 'rest-conventions/adapters/fetch';
import { heldClaims, memoryIdempotencyStore } from 'rest-conventions/idempotency';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { runtimeEnv, serveFetch } from './serve.js';

const config = configFromEnv(runtimeEnv() as NodeJS.ProcessEnv);
const log = (fields: Record<string, unknown>, message: string) => console.error(message, fields);
const claims = heldClaims(memoryIdempotencyStore(config.idempotencyLimits));
const app = createReferenceApp(config, { error: log, warn: log }, { idempotencyStore: claims.store });
serveFetch(toFetchHandler(app));
