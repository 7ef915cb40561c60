import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root folder. */
export const root = resolve(import.meta.dirname, '..', '..');

/** Held by the test process building `dist/` (its pid inside); other workers wait for it. */
const LOCK = join(root, 'node_modules', '.cache', 'rest-conventions-build.lock');
/** How long a worker waits for another's build: a bound on a hung one, not a timing. */
const LOCK_WAIT_MS = 15 * 60_000;
/**
 * The bound for a hook that calls {@link ensureBuilt}: another worker's build waited for, then its
 * own should that one have failed. On a fresh clone of a loaded machine the one build took over
 * 300 s, so a hook bounded by less failed while the build it waited for went on.
 */
export const BUILT_HOOK_TIMEOUT_MS = 2 * LOCK_WAIT_MS;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isBuilt(): boolean {
  const marker = join(root, 'dist', 'index.js');
  return existsSync(marker) && statSync(marker).mtimeMs >= newestMtime(join(root, 'src'));
}

/** Whether the process that took the lock is gone (killed mid-build), so the lock is stale. */
function lockAbandoned(): boolean {
  try {
    process.kill(Number(readFileSync(join(LOCK, 'pid'), 'utf8')), 0);
    return false;
  } catch (error) {
    // ENOENT: the lock was just taken and its pid is not written yet, or it was just released.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function takeLock(): void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (lockAbandoned()) rmSync(LOCK, { recursive: true, force: true });
    else if (Date.now() > deadline)
      throw new Error(`dist/ still being built by another process after ${LOCK_WAIT_MS} ms`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/**
 * Build unless dist/ is at least as new as every source file (CI builds before testing). Test
 * files in several workers may ask at once, on a fresh clone: one builds, under a lock, while the
 * others wait for it, since two builds at once would each clean out what the other wrote.
 */
export function ensureBuilt(): void {
  takeLock();
  try {
    if (!isBuilt()) execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
