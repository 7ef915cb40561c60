import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBPATHS } from '../../build/entries.js';
import { ensureBuilt, root } from '../support/built-package.js';

/**
 * A consumer that installed the package without its optional peers (`pg`, `ioredis`, `@types/pg`)
 * type-checks the published declarations with `skipLibCheck: false`. The package is copied (its
 * `package.json` and `dist/` only), so nothing resolves from this repository's `node_modules`.
 */
const PROGRAM = `
import { createApp, json } from 'rest-conventions';
import { postgresStore, redisStore, idempotency, type Queryable } from 'rest-conventions/idempotency';
import { rateLimit, redisRateLimitStore } from 'rest-conventions/ratelimit';
${SUBPATHS.map((s, i) => `import * as m${i} from 'rest-conventions/${s}';`).join('\n')}

const redis = {
  evalsha: async (_sha: string, _n: number, ..._args: (string | number)[]): Promise<unknown> => null,
  eval: async (_script: string, _n: number, ..._args: (string | number)[]): Promise<unknown> => null,
};
const pool: Queryable = { query: async () => ({ rows: [], rowCount: 0 }) };
const app = createApp({
  use: [rateLimit({ policies: [{ name: 'p', quota: 1, windowSeconds: 1 }], store: redisRateLimitStore({ client: redis }) })],
});
app.route({ method: 'POST', path: '/orders', use: [idempotency({ store: redisStore({ client: redis }) })], handler: () => json(200, {}) });
export const stores = [postgresStore({ pool }), ${SUBPATHS.map((_, i) => `m${i}`).join(', ')}];
`;

const CJS_PROGRAM = `
import rc = require('rest-conventions');
import idem = require('rest-conventions/idempotency');
export const used: [typeof rc.createApp, typeof idem.postgresStore] = [rc.createApp, idem.postgresStore];
`;

const TSCONFIG = (moduleOptions: object, include: string[]) =>
  JSON.stringify({
    include,
    compilerOptions: {
      ...moduleOptions,
      target: 'ES2022',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
    },
  });

describe('a consumer without the optional peers', () => {
  let consumer: string;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

  beforeAll(() => {
    ensureBuilt();
    consumer = mkdtempSync(join(tmpdir(), 'rest-conventions-types-'));
    const modules = join(consumer, 'node_modules');
    const installed = join(modules, 'rest-conventions');
    mkdirSync(installed, { recursive: true });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true });
    // What npm installs beside it: the dependencies (not the optional peers) and the consumer's @types/node.
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const name of [...Object.keys(manifest.dependencies), '@types/node']) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
    }
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    writeFileSync(join(consumer, 'main.ts'), PROGRAM);
    writeFileSync(join(consumer, 'legacy.cts'), CJS_PROGRAM);
    writeFileSync(
      join(consumer, 'tsconfig.node16.json'),
      TSCONFIG({ module: 'node16', moduleResolution: 'node16' }, ['main.ts', 'legacy.cts']),
    );
    writeFileSync(
      join(consumer, 'tsconfig.bundler.json'),
      TSCONFIG({ module: 'esnext', moduleResolution: 'bundler' }, ['main.ts']),
    );
  }, 180_000);
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  /** tsc's diagnostics, empty when the project type-checks. */
  const typecheck = (project: string): string => {
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { cwd: consumer, encoding: 'utf8' });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  };

  it('has no pg, ioredis or @types/pg to resolve', () => {
    for (const peer of ['pg', 'ioredis', '@types/pg']) {
      expect(existsSync(join(consumer, 'node_modules', peer)), peer).toBe(false);
    }
  });

  it.each(['node16', 'bundler'])(
    'type-checks with moduleResolution %s and skipLibCheck false',
    (mode) => {
      expect(typecheck(`tsconfig.${mode}.json`)).toBe('');
    },
    60_000,
  );
});
