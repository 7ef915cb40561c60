import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBPATHS } from '../../build/entries.js';
import { ensureBuilt, root } from '../support/built-package.js';

describe('the built package', () => {
  let consumer: string;

  beforeAll(() => {
    ensureBuilt();
    consumer = mkdtempSync(join(tmpdir(), 'rest-conventions-consumer-'));
    mkdirSync(join(consumer, 'node_modules'));
    symlinkSync(root, join(consumer, 'node_modules', 'rest-conventions'), 'dir');
  }, 120_000);
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

  it.each(['.', ...SUBPATHS])(
    'imports %s as ESM and requires it as CJS with the same export names',
    (subpath) => {
      const specifier = subpath === '.' ? 'rest-conventions' : `rest-conventions/${subpath}`;
      const esm = run([
        '--input-type=module',
        '-e',
        `const m = await import('${specifier}'); console.log(Object.keys(m).sort().join(','))`,
      ]);
      const cjs = run(['-e', `console.log(Object.keys(require('${specifier}')).sort().join(','))`]);
      expect(esm.trim()).not.toBe('');
      expect(cjs.trim()).toBe(esm.trim());
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
