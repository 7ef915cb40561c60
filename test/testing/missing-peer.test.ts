/**
 * `rest-conventions check` where an optional peer is not installed: one line naming the package
 * and how to add it, exit 2, instead of a module resolution error pointing into dist/.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/** The CLI bundled as it ships (its check command a chunk loaded on demand), beside every package but `missing`. */
async function cliWithout(missing: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `cli-without-${missing}-`));
  await build({
    entryPoints: [resolve(root, 'src/cli/main.ts')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: dir,
    logLevel: 'silent',
  });
  await mkdir(join(dir, 'node_modules'));
  for (const name of await readdir(resolve(root, 'node_modules'))) {
    if (name !== missing && !name.startsWith('.'))
      await symlink(resolve(root, 'node_modules', name), join(dir, 'node_modules', name));
  }
  return join(dir, 'main.js');
}

describe.each(['ajv', 'fast-check'])('rest-conventions check without %s installed', (missing) => {
  it('says so in one line naming the package, exit 2', async () => {
    const main = await cliWithout(missing);
    const run = promisify(execFile)(
      process.execPath,
      [main, 'check', '--base', 'http://127.0.0.1:1', '--token-a', 'a', '--token-b', 'b'],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    const failed = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string };
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toBe(
      `rest-conventions check: needs the optional peer dependency ${missing}: npm install --save-dev ${missing}\n`,
    );
    expect(failed.code).toBe(2);
  }, 30_000);
});
