import { jsonLineLogger } from 'rest-conventions';
import { closeGracefully, createNodeServer } from 'rest-conventions/adapters/node';
import { heldClaims } from 'rest-conventions/idempotency';
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
// Claims this process holds, so that shutdown can release those of requests it had to cut.
const claims = heldClaims(infrastructure.idempotencyStore);
const server = createNodeServer(
  createReferenceApp(config, logger, { ...infrastructure, idempotencyStore: claims.store }),
);
server.listen(config.port, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  process.stdout.write(`rest-conventions reference app listening on http://localhost:${port}\n`);
});

/**
 * SIGTERM/SIGINT: stop accepting, close idle keep-alive connections, let requests in flight finish
 * (their responses say `Connection: close`) for up to SHUTDOWN_TIMEOUT seconds, then close Redis and
 * PostgreSQL and exit 0. A request that finished completed its idempotency record; the claim of one
 * cut at the bound is released, so the client's retry runs at once instead of getting 409 until the
 * lease ends. A second signal exits at once.
 */
const stop = () => {
  process.once('SIGTERM', () => process.exit(1));
  process.once('SIGINT', () => process.exit(1));
  void closeGracefully(server, { timeoutMs: config.shutdownTimeoutSeconds * 1000 })
    .then((outcome) => {
      if (outcome === 'timed-out') {
        logger.warn('shutdown: requests still in flight after SHUTDOWN_TIMEOUT were cut', {});
      }
      return claims.releaseAll();
    })
    .then((released) => {
      if (released > 0) logger.warn('shutdown: idempotency claims of cut requests released', { released });
      return infrastructure.close();
    })
    .then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
