import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { root } from './built-package.js';

const run = promisify(execFile);

/**
 * `npm run test:load` (docs/testing.md, "Under load"), run as a contributor runs it: every run
 * reported, the first failure ends it, its bound stops a run in progress, and its busy loops are gone
 * once it has ended. It runs beside the rest of `npm test`, so it burns as little as it can: one busy
 * loop (`--loops 1`; what stops one stops two), and runs that find no test file, each ending once
 * vitest has started, so that the whole takes seconds of CPU rather than minutes.
 */
async function testLoad(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'test:load', '--', ...args], {
      cwd: root,
      timeout: 600_000,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, out: failed.stdout ?? '', err: failed.stderr ?? '' };
  }
}

/** The busy loops' pids the script announced, and whether any of them still runs. */
function burnersLeft(out: string): number[] {
  const pids = /busy loop\(s\) \(pids ([\d, ]+)\)/.exec(out)![1]!.split(', ').map(Number);
  expect(pids).toHaveLength(1);
  return pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

const ONE_LOOP = ['--loops', '1'];
/** A run that starts vitest, finds no test file and passes: seconds, not the minutes of a suite. */
const NO_TESTS = ['--typecheck.enabled=false', '--passWithNoTests', 'test/no-such-directory'];
/** A run that would take longer than the bound of 0.6 s below: vitest alone takes more to start. */
const SMALL = ['--typecheck.enabled=false', 'test/errors/codes.test.ts'];

describe('npm run test:load', () => {
  it('runs the tests twice in a row beside busy loops, says so, and stops the loops', async () => {
    const { code, out } = await testLoad(...ONE_LOOP, ...NO_TESTS);
    expect(out).toMatch(/run 1 of 2: passed in \d+ s/);
    expect(out).toMatch(/run 2 of 2: passed in \d+ s/);
    expect(code).toBe(0);
    expect(burnersLeft(out)).toEqual([]);
  });

  it('stops at the first run that fails, and exits 1', async () => {
    const { code, out } = await testLoad(
      ...ONE_LOOP,
      '--runs',
      '3',
      '--typecheck.enabled=false',
      'test/no-such-directory',
    );
    expect(out).toMatch(/run 1 of 3: failed \(exit 1\)/);
    expect(out).not.toMatch(/run 2 of 3/);
    expect(code).toBe(1);
    expect(burnersLeft(out)).toEqual([]);
  });

  it('stops a run still going at its bound', async () => {
    const { code, out } = await testLoad(...ONE_LOOP, '--runs', '1', '--minutes', '0.01', ...SMALL);
    expect(out).toMatch(/run 1 of 1: stopped at the bound \(SIGKILL\)/);
    expect(code).toBe(1);
    expect(burnersLeft(out)).toEqual([]);
  });

  it('refuses a bad option, naming it', async () => {
    const { code, err } = await testLoad('--runs', '0');
    expect(err).toContain('test:load: --runs takes a positive integer');
    expect(code).not.toBe(0);
    const loops = await testLoad('--loops', '1.5');
    expect(loops.err).toContain('test:load: --loops takes a positive integer');
    expect(loops.code).not.toBe(0);
  });
});
