import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root folder. */
export const root = resolve(import.meta.dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Build unless dist/ is at least as new as every source file (CI builds before testing). */
export function ensureBuilt(): void {
  const marker = join(root, 'dist', 'index.js');
  if (existsSync(marker) && statSync(marker).mtimeMs >= newestMtime(join(root, 'src'))) return;
  execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe' });
}
