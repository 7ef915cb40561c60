import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A reference app (or cluster) running as a real child process. */
export interface AppProcess {
  /** The base URLs it announced, e.g. `http://localhost:40123`. */
  readonly urls: readonly string[];
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has gone. */
  readonly exited: Promise<number | string>;
  /** SIGTERM (or `signal`), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/**
 * Start `script` (relative to the repository) with tsx and `env`, and resolve once `count` lines
 * announce a listening URL. A process that exits first rejects, with what it printed.
 */
export function startProcess(script: string, env: NodeJS.ProcessEnv, count = 1, args: string[] = []) {
  return startCommand(script, process.execPath, ['--import', 'tsx', script, ...args], env, count);
}

/**
 * An npm script (`npm run <name>`) as a user runs it: npm, the shell npm starts, and what the
 * script runs. The whole tree is its own process group, so a test can end what is left of it
 * (`process.kill(-child.pid)`) whatever npm did.
 */
export function startNpmScript(
  name: string,
  env: NodeJS.ProcessEnv,
  count = 1,
  args: string[] = [],
  onReady?: (child: ChildProcess) => void,
) {
  return startCommand(
    `npm run ${name}`,
    'npm',
    ['run', '--silent', name, '--', ...args],
    env,
    count,
    true,
    onReady,
  );
}

async function startCommand(
  what: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  count: number,
  detached = false,
  onReady?: (child: ChildProcess) => void,
) {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const urls: string[] = [];
  const ready = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const url = LISTENING.exec(line)?.[1];
      if (url !== undefined) urls.push(url);
      if (urls.length === count) {
        // Called in the same turn as the line arrives, before any other await: as early as a
        // process manager reading the line could act.
        onReady?.(child);
        resolve();
      }
    });
  });
  const failed = exited.then((code) => {
    throw new Error(`${what} exited (${code}) before it was ready:\n${output.slice(-2000)}`);
  });
  await Promise.race([ready, failed]);
  failed.catch(() => undefined);
  const app: AppProcess = {
    urls,
    child,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return app;
}

/** The reference app's entry point as a child process. */
export function startReferenceApp(env: NodeJS.ProcessEnv): Promise<AppProcess> {
  return startProcess('examples/reference-app/main.ts', env);
}
