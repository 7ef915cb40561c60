import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { root } from './built-package.js';

/**
 * The code blocks of a page of docs/ tagged `<tag>:<file>` (```` ```ts adopter:shop.ts ````), by
 * file name, in page order.
 */
export function taggedBlocks(page: string, tag: string): Map<string, string> {
  const text = readFileSync(join(root, 'docs', page), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, file, code] of text.matchAll(new RegExp(`\`\`\`ts ${tag}:(\\S+)\\n([\\s\\S]*?)\`\`\``, 'g')))
    blocks.set(file!, code!);
  return blocks;
}

/**
 * The blocks written out as files of a new folder under `near` (a test's own folder, so that
 * `rest-conventions` and the dev dependencies resolve as in the repository), with a tsconfig that
 * compiles them as the project's (strict). The caller removes the folder.
 */
export function writeBlocks(near: string, prefix: string, blocks: ReadonlyMap<string, string>): string {
  const dir = mkdtempSync(join(near, prefix));
  for (const [file, code] of blocks) writeFileSync(join(dir, file), code);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: relative(dir, join(root, 'tsconfig.json')),
      include: ['./*.ts'],
      compilerOptions: { noEmit: true },
    }),
  );
  return dir;
}

/** tsc on a folder made by {@link writeBlocks}: what it printed, `''` when the blocks compile. */
export async function compileBlocks(dir: string): Promise<string> {
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  const { stdout } = await promisify(execFile)(tsc, ['-p', join(dir, 'tsconfig.json')], { cwd: root }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout }),
  );
  return stdout;
}
