/**
 * The consumer type-check matrix: the built package's declarations (`dist/`), imported by a small
 * consumer, compiled by `tsc` with `skipLibCheck: false` for each `@types/node` the package supports
 * (20, 22, 24) and each way a consumer resolves modules (node16, bundler, CommonJS's node10). The
 * consumer has every dependency and optional peer installed beside the package, as an app using every
 * subpath would, and one `@types/node`. Cells run side by side, one `tsc` each.
 *
 * `npm run check:types` (after `npm run build`); `.ci/run` runs it. Exits non-zero naming each
 * failing cell with tsc's diagnostics.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { SUBPATHS } from './entries.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const modules = join(root, 'node_modules');

/** `@types/node` majors, each installed under its own alias (`@types/node-22`); 20 is the plain one. */
const NODE_TYPES = { '20': '@types/node', '22': '@types/node-22', '24': '@types/node-24' } as const;

const SPECIFIERS = ['rest-conventions', ...SUBPATHS.map((s) => `rest-conventions/${s}`)];
const importing = (
  specifiers: readonly string[],
) => `${specifiers.map((s, i) => `import * as m${i} from '${s}';`).join('\n')}
export const used = [${specifiers.map((_, i) => `m${i}`).join(', ')}];
`;
const ESM_CONSUMER = importing(SPECIFIERS);
/**
 * node10 resolution reads no `exports` map; fast-check 4's own declarations import pure-rand by a
 * subpath only its `exports` names, so fast-check does not compile there, with or without this
 * package: `testing` (fast-check's arbitraries) is left out of that cell.
 */
const NODE10_CONSUMER = importing(SPECIFIERS.filter((s) => s !== 'rest-conventions/testing'));
const CJS_CONSUMER = `${SPECIFIERS.map((s, i) => `import m${i} = require('${s}');`).join('\n')}
export const used = [${SPECIFIERS.map((_, i) => `m${i}`).join(', ')}];
`;

/** Resolution mode: compiler options and the consumer files it compiles. */
const RESOLUTIONS = {
  node16: { options: { module: 'node16', moduleResolution: 'node16' }, files: ['main.ts', 'legacy.cts'] },
  bundler: { options: { module: 'esnext', moduleResolution: 'bundler' }, files: ['main.ts'] },
  // `esModuleInterop` as `tsc --init` writes it: Fastify's types default-import CommonJS modules (pino's).
  commonjs: {
    options: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
    files: ['node10.ts'],
  },
} as const;

/**
 * A consumer folder: the package as npm installs it (`package.json` and `dist/`), and beside it every
 * package of this repository's `node_modules` (the dependencies, the optional peers and their types)
 * but `@types/node`, which is the cell's. Linked, with symlinks preserved, so everything resolves from
 * the consumer's own `node_modules`, as after an install.
 */
function consumer(dir: string, nodeTypes: string, type: 'module' | 'commonjs'): void {
  const installed = join(dir, 'node_modules');
  mkdirSync(join(installed, '@types'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry === '.bin' || entry === '.cache' || entry === 'rest-conventions' || entry === '@types')
      continue;
    symlinkSync(join(modules, entry), join(installed, entry), 'dir');
  }
  for (const entry of readdirSync(join(modules, '@types'))) {
    if (entry.startsWith('node')) continue;
    symlinkSync(join(modules, '@types', entry), join(installed, '@types', entry), 'dir');
  }
  symlinkSync(join(modules, nodeTypes), join(installed, '@types', 'node'), 'dir');
  // Express 5.3 brings content-disposition 2, which npm hoists and whose own types drop the `Options`
  // that @types/koa 3 names: an app with both frameworks has that error whatever it imports from
  // here. The consumer has Koa's own content-disposition, as an app using Koa has.
  const koaOwn = join(modules, 'koa', 'node_modules', 'content-disposition');
  if (existsSync(koaOwn)) {
    rmSync(join(installed, 'content-disposition'));
    symlinkSync(koaOwn, join(installed, 'content-disposition'), 'dir');
  }
  const pkg = join(installed, 'rest-conventions');
  mkdirSync(pkg);
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  cpSync(join(root, 'dist'), join(pkg, 'dist'), {
    recursive: true,
    filter: (source) => !/\.(c?js|map)$/.test(source),
  });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type }));
  writeFileSync(join(dir, 'main.ts'), ESM_CONSUMER);
  writeFileSync(join(dir, 'legacy.cts'), CJS_CONSUMER);
  writeFileSync(join(dir, 'node10.ts'), NODE10_CONSUMER);
}

interface Cell {
  readonly name: string;
  readonly dir: string;
}

function cells(base: string): Cell[] {
  const list: Cell[] = [];
  for (const [major, nodeTypes] of Object.entries(NODE_TYPES))
    for (const [resolution, { options, files }] of Object.entries(RESOLUTIONS)) {
      const dir = join(base, `node${major}-${resolution}`);
      mkdirSync(dir);
      consumer(dir, nodeTypes, resolution === 'commonjs' ? 'commonjs' : 'module');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          files,
          compilerOptions: {
            ...options,
            target: 'ES2022',
            lib: ['ES2023'],
            types: ['node'],
            strict: true,
            skipLibCheck: false,
            preserveSymlinks: true,
            noEmit: true,
          },
        }),
      );
      list.push({ name: `@types/node ${major} × ${resolution}`, dir });
    }
  return list;
}

async function check(cell: Cell): Promise<string> {
  const tsc = join(modules, 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', cell.dir], { cwd: cell.dir, maxBuffer: 64 * 1024 * 1024 });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}`.trim() || String(error);
  }
}

const base = mkdtempSync(join(tmpdir(), 'rest-conventions-types-matrix-'));
try {
  const started = performance.now();
  // `-- <text>`: only the cells whose name contains it (`-- commonjs`, `-- 'node 24'`).
  const only = process.argv[2];
  const queue = cells(base).filter((cell) => only === undefined || cell.name.includes(only));
  const failures: string[] = [];
  const worker = async () => {
    for (let cell = queue.shift(); cell !== undefined; cell = queue.shift()) {
      const output = await check(cell);
      console.log(`${output === '' ? 'ok  ' : 'FAIL'} ${cell.name}`);
      if (output !== '') failures.push(`${cell.name}\n${output}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(2, availableParallelism()) }, worker));
  console.log(`types matrix: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (failures.length > 0) {
    console.error(failures.join('\n\n'));
    process.exitCode = 1;
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
