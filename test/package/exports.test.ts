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
import { FRAMEWORK_SUBPATHS, PEER_TYPED_SUBPATHS, SUBPATHS } from '../../build/entries.js';
import { BUILT_HOOK_TIMEOUT_MS, ensureBuilt, root } from '../support/built-package.js';

describe('the built package', () => {
  let consumer: string;

  beforeAll(() => {
    ensureBuilt();
    consumer = mkdtempSync(join(tmpdir(), 'rest-conventions-consumer-'));
    mkdirSync(join(consumer, 'node_modules'));
    symlinkSync(root, join(consumer, 'node_modules', 'rest-conventions'), 'dir');
  }, BUILT_HOOK_TIMEOUT_MS);
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: consumer, encoding: 'utf8' });

  it('declares one exports entry per subpath, each with ESM, CJS and type declarations', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const declared = Object.keys(manifest.exports).filter((k) => k !== '.' && k !== './package.json');
    expect(declared.sort()).toEqual(SUBPATHS.map((s) => `./${s}`).sort());
    for (const key of ['.', ...declared]) {
      const entry = manifest.exports[key];
      for (const file of [
        entry.import.default,
        entry.import.types,
        entry.require.default,
        entry.require.types,
      ]) {
        expect(existsSync(join(root, file)), `${key}: ${file}`).toBe(true);
      }
    }
  });

  it('maps each subpath to its declarations for a consumer resolving without exports (node10), as `types` does the root', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const mapped: Record<string, string[]> = manifest.typesVersions['*'];
    expect(Object.keys(mapped).sort()).toEqual([...SUBPATHS].sort());
    for (const subpath of SUBPATHS)
      expect(mapped[subpath], subpath).toEqual([manifest.exports[`./${subpath}`].import.types]);
  });

  it.each(['.', ...SUBPATHS])(
    'imports %s as ESM and requires it as CJS with the same export names',
    (subpath) => {
      const specifier = subpath === '.' ? 'rest-conventions' : `rest-conventions/${subpath}`;
      // One process for both builds: one each cost a Node start and a load more per entry point. The
      // builds are separate files (`import` resolves the `.js` ones, `require` the `.cjs` ones), so
      // one loaded first cannot stand in for what the other lacks.
      const [esm, cjs] = JSON.parse(
        run([
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
          const esm = Object.keys(await import('${specifier}')).sort().join(',');
          const cjs = Object.keys(createRequire(process.cwd() + '/')('${specifier}')).sort().join(',');
          console.log(JSON.stringify([esm, cjs]));`,
        ]),
      ) as [string, string];
      expect(esm).not.toBe('');
      expect(cjs).toBe(esm);
    },
  );

  it('serves a request through the CJS build and the ESM build alike', () => {
    const program = (load: string) => `
      ${load}
      const app = createApp({ use: [securityHeaders()] });
      app.route({ method: 'GET', path: '/books/{id}', handler: (ctx) => json(200, { data: { type: 'books', id: ctx.params.id } }) });
      app.route({ method: 'GET', path: '/errors', handler: () => { throw new ApiError(418, { detail: 'teapot' }); } });
      const view = (path) => ({ method: 'GET', path, search: '', headers: { get: () => undefined }, remoteAddress: undefined, body: async function* () {} });
      Promise.all([app.handle(view('/books/7')), app.handle(view('/errors'))]).then(([ok, err]) => {
        console.log(JSON.stringify([ok.status, ok.json, ok.headers['x-frame-options'], err.status, err.json.errors[0].detail]));
      });`;
    const expected = JSON.stringify([200, { data: { type: 'books', id: '7' } }, 'DENY', 418, 'teapot']);
    const cjs = run([
      '-e',
      program(
        `const { createApp, json, ApiError } = require('rest-conventions'); const { securityHeaders } = require('rest-conventions/security');`,
      ),
    ]);
    const esm = run([
      '--input-type=module',
      '-e',
      program(
        `import { createApp, json, ApiError } from 'rest-conventions'; import { securityHeaders } from 'rest-conventions/security';`,
      ),
    ]);
    expect(cjs.trim()).toBe(expected);
    expect(esm.trim()).toBe(expected);
  });
});

// In the same file as the runtime checks, so that one build serves both (files run in parallel).
/**
 * A consumer that installed the package without its optional peers (`pg`, `ioredis`, `@types/pg`)
 * type-checks the published declarations with `skipLibCheck: false`. The package is copied (its
 * `package.json` and `dist/` only), so nothing resolves from this repository's `node_modules`.
 */
// The framework subpaths need their framework's types, as their users have them; every other
// subpath must type-check without any optional peer.
const PEERLESS = SUBPATHS.filter(
  (s) => !([...FRAMEWORK_SUBPATHS, ...PEER_TYPED_SUBPATHS] as readonly string[]).includes(s),
);
const PROGRAM = `
import { createApp, json } from 'rest-conventions';
import { postgresIdempotencyStore, redisIdempotencyStore, idempotency, type Queryable } from 'rest-conventions/idempotency';
import { rateLimit, redisRateLimitStore } from 'rest-conventions/ratelimit';
${PEERLESS.map((s, i) => `import * as m${i} from 'rest-conventions/${s}';`).join('\n')}

const redis = {
  evalsha: async (_sha: string, _n: number, ..._args: (string | number)[]): Promise<unknown> => null,
  eval: async (_script: string, _n: number, ..._args: (string | number)[]): Promise<unknown> => null,
};
const pool: Queryable = { query: async () => ({ rows: [], rowCount: 0 }) };
const app = createApp({
  use: [rateLimit({ policies: [{ name: 'p', quota: 1, windowSeconds: 1 }], store: redisRateLimitStore({ client: redis }) })],
});
app.route({ method: 'POST', path: '/orders', use: [idempotency({ store: redisIdempotencyStore({ client: redis }) })], handler: () => json(200, {}) });
export const stores = [postgresIdempotencyStore({ pool }), ${PEERLESS.map((_, i) => `m${i}`).join(', ')}];
`;

const CJS_PROGRAM = `
import rc = require('rest-conventions');
import idem = require('rest-conventions/idempotency');
export const used: [typeof rc.createApp, typeof idem.postgresIdempotencyStore] = [rc.createApp, idem.postgresIdempotencyStore];
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
  }, BUILT_HOOK_TIMEOUT_MS);
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
    // tsc over the whole built package: over a minute on a loaded machine.
    300_000,
  );
});
