import { heldClaims } from 'rest-conventions/idempotency';
import { createReferenceApp } from './composition-root.js';
import { configFromEnv } from './config.js';
import { connectInfrastructure, StartupError } from './infrastructure.js';
import { referenceAppLogger } from './logger.js';
import { serve } from './serve.js';
import { startTelemetry } from './telemetry.js';

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
const { adapter } = config;
// pino: pretty in a terminal, JSON lines otherwise. Pass any `Logger` to createReferenceApp instead.
const logger = referenceAppLogger({ level: config.logLevel });
if (config.usingDevSecret) {
  logger.warn(
    'AUTH_SECRET is not set: using the documented development secret. Never do this in production.',
  );
}

// Before the app is built: its telemetry middleware takes the providers the SDK registers.
const telemetry = await startTelemetry(config).catch((error: unknown) =>
  cannotStart(new StartupError(`METRICS_PORT ${config.telemetry.metricsPort}: ${(error as Error).message}`)),
);
const infrastructure = await connectInfrastructure(config).catch(cannotStart);
// Claims this process holds, so that shutdown can release those of requests it had to cut.
const claims = heldClaims(infrastructure.idempotencyStore);
const server = await serve(
  adapter,
  createReferenceApp(config, logger, { ...infrastructure, idempotencyStore: claims.store }),
  config.port,
);

/**
 * SIGTERM/SIGINT: stop accepting, close idle keep-alive connections, let requests in flight finish
 * (their responses say `Connection: close`) for up to SHUTDOWN_TIMEOUT seconds (the node adapter),
 * then close Redis and PostgreSQL and exit 0. A request that finished completed its idempotency
 * record; the claim of one cut at the bound is released, so the client's retry runs at once instead
 * of getting 409 until the lease ends. A second signal exits at once.
 */
let stopping = false;
const stop = () => {
  // Listeners stay installed throughout (no `once`), so no signal ever meets the default action.
  if (stopping) process.exit(1);
  stopping = true;
  void server
    .close(config.shutdownTimeoutSeconds * 1000)
    .then((outcome) => {
      if (outcome === 'timed-out') {
        logger.warn({}, 'shutdown: requests still in flight after SHUTDOWN_TIMEOUT were cut');
      }
      return claims.releaseAll();
    })
    .then((released) => {
      if (released > 0) logger.warn({ released }, 'shutdown: idempotency claims of cut requests released');
      return infrastructure.close();
    })
    .then(() => telemetry?.shutdown())
    .then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Announced only once the handlers are in place: a process manager may signal the moment it reads
// this line, and a SIGTERM before them would kill the app without its drain.
process.stdout.write(
  `rest-conventions reference app listening on http://localhost:${server.port} (${adapter})\n`,
);
