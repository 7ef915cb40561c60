import { createReferenceApp, type StoreOverrides } from '../../examples/reference-app/composition-root.js';
import { configFromEnv, DEV_AUTH_SECRET } from '../../examples/reference-app/config.js';
import { signHs256Token } from '../../src/auth/index.js';
import type { Logger } from '../../src/core/types.js';

/** A logger that keeps what it is given, for asserting on it (and keeps test output quiet). */
export function memoryLogger(): Logger & {
  readonly entries: Array<{ level: string; message: string; fields: Record<string, unknown> }>;
} {
  const entries: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  return {
    entries,
    error: (fields, message) => entries.push({ level: 'error', message, fields }),
    warn: (fields, message) => entries.push({ level: 'warn', message, fields }),
  };
}

/**
 * A fresh reference app with the default (in-memory) stores and the development secret. The rate
 * limit is raised so that property tests sending thousands of requests measure what they mean to;
 * the limiter's own tests set `RATE_LIMIT_MAX`.
 */
export function referenceApp(env: NodeJS.ProcessEnv = {}, stores: StoreOverrides = {}) {
  const logger = memoryLogger();
  const config = configFromEnv({ RATE_LIMIT_MAX: '1000000', ...env });
  return { app: createReferenceApp(config, logger, stores), logger };
}

/** A bearer token for the reference app's development secret. */
export async function bearer(sub: string, scope?: string): Promise<string> {
  return `Bearer ${await signHs256Token(DEV_AUTH_SECRET, { sub, ...(scope === undefined ? {} : { scope }) })}`;
}
