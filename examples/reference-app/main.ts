import { jsonLineLogger } from 'rest-conventions';
import { createReferenceApp } from './composition-root.js';
import { configFromEnv } from './config.js';
import { connectInfrastructure } from './infrastructure.js';
import { ADAPTERS, type AdapterName, serve } from './serve.js';

const config = configFromEnv();
const logger = jsonLineLogger;
if (config.usingDevSecret) {
  logger.warn(
    'AUTH_SECRET is not set: using the documented development secret. Never do this in production.',
    {},
  );
}

const infrastructure = await connectInfrastructure(config);
const adapter = (process.env.ADAPTER ?? 'node') as AdapterName;
if (!ADAPTERS.includes(adapter))
  throw new TypeError(`ADAPTER must be one of ${ADAPTERS.join('|')}, got ${adapter}`);
const server = await serve(adapter, createReferenceApp(config, logger, infrastructure), config.port);
process.stdout.write(
  `rest-conventions reference app listening on http://localhost:${server.port} (${adapter})\n`,
);

const stop = () => void server.close().then(() => infrastructure.close().then(() => process.exit(0)));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
