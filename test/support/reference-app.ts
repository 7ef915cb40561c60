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
    error: (message, fields) => entries.push({ level: 'error', message, fields }),
    warn: (message, fields) => entries.push({ level: 'warn', message, fields }),
  };
}

/** A fresh reference app with the default (in-memory) stores and the development secret. */
export function referenceApp(env: NodeJS.ProcessEnv = {}, stores: StoreOverrides = {}) {
  const logger = memoryLogger();
  return { app: createReferenceApp(configFromEnv(env), logger, stores), logger };
}

/** A bearer token for the reference app's development secret. */
export async function bearer(sub: string, scope?: string): Promise<string> {
  return `Bearer ${await signHs256Token(DEV_AUTH_SECRET, { sub, ...(scope === undefined ? {} : { scope }) })}`;
}
