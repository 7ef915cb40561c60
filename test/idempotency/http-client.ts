import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * Send one request with node:http. Header values may be arrays (sent as several field lines) and
 * are written as given (latin1), so tests can send bytes a well-behaved client would not.
 */
export function send(
  port: number,
  headers: Record<string, string | string[]>,
  body: string,
  options: { signal?: AbortSignal } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/orders',
      signal: options.signal,
      agent: false,
    });
    request.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(headers)) request.setHeader(name, value);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** A child process running the order server fixture; `lines` collects the JSON lines it prints. */
export interface FixtureServer {
  readonly port: number;
  readonly child: ChildProcess;
  readonly lines: Record<string, unknown>[];
  /** Resolves once the server printed a line matching `predicate`. */
  waitFor(predicate: (line: Record<string, unknown>) => boolean): Promise<void>;
  kill(): Promise<void>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/order-server.ts', import.meta.url));

/** Start the order server fixture in its own process (loopback only). */
export function startFixture(env: Record<string, string>): Promise<FixtureServer> {
  // tsx as a loader of this very node process (not the tsx CLI, which would run the server in a
  // grandchild that survives a kill).
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { predicate: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.predicate(line))) waiter.resolve();
      newline = buffered.indexOf('\n');
    }
  });
  const waitFor = (predicate: (line: Record<string, unknown>) => boolean) =>
    new Promise<void>((resolve, reject) => {
      if (lines.some(predicate)) return resolve();
      waiters.push({ predicate, resolve });
      child.once('exit', (code) =>
        reject(new Error(`fixture server exited (${code}) before the expected line`)),
      );
    });
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return waitFor((line) => typeof line.port === 'number').then(() => ({
    port: lines.find((line) => typeof line.port === 'number')!.port as number,
    child,
    lines,
    waitFor,
    kill,
  }));
}

/**
 * Exactly one of `responses` ran the handler; every other one is its byte-identical replay or a
 * 409 conflict (with `Retry-After`). Returns the one that ran.
 */
export function expectOneExecution(responses: readonly RawResponse[]): RawResponse {
  const original = responses.filter(
    (r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined,
  );
  expect(original).toHaveLength(1);
  for (const response of responses) {
    expect([201, 409]).toContain(response.status);
    if (response.status === 201) expect(response.body.equals(original[0]!.body)).toBe(true);
    if (response.status === 409) expect(response.headers['retry-after']).toBe('1');
  }
  return original[0]!;
}
