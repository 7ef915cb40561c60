import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * `npm run cluster -- <n>`: n instances of the reference app on consecutive ports from PORT (default
 * 3000; PORT=0 gives each a free port), sharing their stores: DATA_STORE=postgres,
 * IDEMPOTENCY_STORE=postgres and RATE_LIMIT_STORE=redis unless the environment says otherwise
 * (docs/deployment.md). Prints each instance's URL; SIGINT or SIGTERM stops them all.
 */
const MAX_INSTANCES = 16;
const CLUSTER_DEFAULTS = { DATA_STORE: 'postgres', IDEMPOTENCY_STORE: 'postgres', RATE_LIMIT_STORE: 'redis' };

function instanceCount(raw: string | undefined): number {
  const n = Number(raw ?? 2);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_INSTANCES) {
    throw new TypeError(`cluster: the instance count must be 1..${MAX_INSTANCES}, got ${raw}`);
  }
  return n;
}

const count = instanceCount(process.argv[2]);
const basePort = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(basePort) || basePort < 0 || basePort + count - 1 > 65535) {
  throw new TypeError(
    `cluster: PORT must leave room for ${count} ports below 65536, got ${process.env.PORT}`,
  );
}
const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const children: ChildProcess[] = [];
let stopping = false;
let ready = 0;

const stopAll = (code: number) => {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};

for (let i = 0; i < count; i++) {
  const port = basePort === 0 ? 0 : basePort + i;
  const env = { ...CLUSTER_DEFAULTS, ...process.env, PORT: String(port) };
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
    if (url === undefined) {
      process.stdout.write(`[${i + 1}] ${line}\n`);
      return;
    }
    process.stdout.write(`instance ${i + 1} listening on ${url}\n`);
    if (++ready === count) process.stdout.write(`cluster: ${count} instances ready\n`);
  });
  child.on('exit', (code, signal) => {
    // One instance gone unasked: stop the rest rather than run a cluster short.
    if (!stopping) {
      process.stderr.write(`cluster: instance ${i + 1} exited (${code ?? signal}); stopping all\n`);
      stopAll(1);
    }
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit();
  });
}

process.once('SIGINT', () => stopAll(0));
process.once('SIGTERM', () => stopAll(0));
