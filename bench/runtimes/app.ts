/**
 * The reference app on Bun or Deno: the composition root and settings the bench runs on Node
 * (`examples/reference-app/composition-root.ts`, memory stores, `SERVER_ENV`), through
 * `toFetchHandler` on the runtime's own server, bundled as a Worker module is (bench/servers.ts).
 */
import { toFetchHandler } from 'rest-conventions/adapters/fetch';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { remoteAddress, runtimeEnv, serveFetch } from './serve.js';

const log = (fields: Record<string, unknown>, message: string) => console.error(message, fields);
const app = createReferenceApp(configFromEnv(runtimeEnv() as NodeJS.ProcessEnv), { error: log, warn: log });
const handler = toFetchHandler(app);
serveFetch((request, env) => handler(request, { remoteAddress: remoteAddress(request, env) }));
