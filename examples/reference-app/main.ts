import http from 'node:http';
import { toNodeHandler } from 'rest-conventions/adapters/node';
import { createReferenceApp } from './composition-root.js';
import { configFromEnv } from './config.js';
import { connectInfrastructure } from './infrastructure.js';
import { referenceAppLogger } from './logger.js';

const config = configFromEnv();
// pino: pretty in a terminal, JSON lines otherwise. Pass any `Logger` to createReferenceApp instead.
const logger = referenceAppLogger();
if (config.usingDevSecret) {
  logger.warn(
    'AUTH_SECRET is not set: using the documented development secret. Never do this in production.',
  );
}

const infrastructure = await connectInfrastructure(config);
const server = http.createServer(toNodeHandler(createReferenceApp(config, logger, infrastructure)));
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
