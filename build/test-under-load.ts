/**
 * `npm run test:load`: the test suite, run again and again while busy loops keep the cores
 * busy, as on a loaded CI machine (docs/testing.md, "Under load"). A test that waits for time
 * rather than for a condition fails here.
 *
 *   npm run test:load -- [--runs <n>] [--minutes <m>] [--loops <n>] [vitest arguments]
 *
 * `--loops` (default 2, one per core of the 2-core CI machine) busy loops run throughout. `--runs` (default 2) runs of `vitest run <vitest arguments>` one after the other, stopping at the
 * first that fails; the whole is bounded by `--minutes` (default 90): past it, the run in progress is
 * stopped and counted as failed. The busy loops stop when the script ends, and by themselves at that
 * bound should the script be killed. Prints each run's time and result; exits 0 only when every
 * run passed.
 */
import { type ChildProcess, spawn } from 'node:child_process';

interface Options {
  readonly runs: number;
  readonly minutes: number;
  readonly loops: number;
  readonly vitestArgs: readonly string[];
}

function parse(argv: readonly string[]): Options {
  let runs = 2;
  let minutes = 90;
  let loops = 2;
  const vitestArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--runs' || arg === '--minutes' || arg === '--loops') {
      const value = Number(argv[++i]);
      const integer = arg !== '--minutes';
      if (!(value > 0) || (integer && !Number.isInteger(value))) {
        throw new TypeError(`test:load: ${arg} takes a positive ${integer ? 'integer' : 'number'}`);
      }
      if (arg === '--runs') runs = value;
      else if (arg === '--loops') loops = value;
      else minutes = value;
    } else vitestArgs.push(arg);
  }
  return { runs, minutes, loops, vitestArgs };
}

/** A busy loop in a process of its own, which ends by itself at `deadline` (epoch ms). */
function burner(deadline: number): ChildProcess {
  return spawn(process.execPath, ['-e', `while (Date.now() < ${deadline}) {}`], { stdio: 'ignore' });
}

/** `vitest run args` in its own process group, so that the whole of it can be stopped. */
function vitest(args: readonly string[]): ChildProcess {
  return spawn('npx', ['vitest', 'run', ...args], { stdio: 'inherit', detached: true });
}

function stopGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function main(): Promise<number> {
  const { runs, minutes, loops, vitestArgs } = parse(process.argv.slice(2));
  const deadline = Date.now() + minutes * 60_000;
  const burners = Array.from({ length: loops }, () => burner(deadline));
  let running: ChildProcess | undefined;
  const stopAll = () => {
    for (const child of burners) child.kill('SIGKILL');
    if (running !== undefined) stopGroup(running);
  };
  process.once('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopAll();
      process.exit(130);
    });
  }
  console.log(
    `test:load: ${loops} busy loop(s) (pids ${burners.map((b) => b.pid).join(', ')}), ${runs} run(s), at most ${minutes} min`,
  );
  let failed = false;
  for (let run = 1; run <= runs && !failed; run++) {
    const started = Date.now();
    running = vitest(vitestArgs);
    const child = running;
    const bound = setTimeout(() => stopGroup(child), Math.max(0, deadline - Date.now()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(bound);
    const seconds = Math.round((Date.now() - started) / 1000);
    const outcome =
      code === 0 ? 'passed' : signal === null ? `failed (exit ${code})` : `stopped at the bound (${signal})`;
    console.log(`test:load: run ${run} of ${runs}: ${outcome} in ${seconds} s`);
    failed = code !== 0;
  }
  stopAll();
  return failed ? 1 : 0;
}

process.exitCode = await main();
