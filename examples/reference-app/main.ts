import { jsonLineLogger } from 'rest-conventions';
import { createNodeServer } from 'rest-conventions/adapters/node';
import { createReferenceApp } from './composition-root.js';
import { configFromEnv } from './config.js';
import { connectInfrastructure, StartupError } from './infrastructure.js';

/** A start-up failure we can explain (a bad setting, a store that is not there): one line, exit 1. */
function cannotStart(error: unknown): never {
  if (!(error instanceof StartupError || error instanceof TypeError)) throw error;
  process.stderr.write(`rest-conventions reference app cannot start: ${error.message}\n`);
  process.exit(1);
}

let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv();
} catch (error) {
  cannotStart(error);
}
const logger = jsonLineLogger;
if (config.usingDevSecret) {
  logger.warn(
    'AUTH_SECRET is not set: using the documented development secret. Never do this in production.',
    {},
  );
}

const infrastructure = await connectInfrastructure(config).catch(cannotStart);
// Header, request and idle timeouts and a connection cap: docs/security.md.
const server = createNodeServer(createReferenceApp(config, logger, infrastructure));
server.listen(config.port, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  process.stdout.write(`rest-conventions reference app listening on http://localhost:${port}\n`);
});

const stop = () =>
  server.close(() => {
    void infrastructure.close().then(() => process.exit(0));
  });
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
