import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../../examples/reference-app/serve.js';
import { DEFAULT_MAX_PIPELINED_REQUESTS } from '../../src/adapters/pipelining.js';
import type { Question, ServerState } from './fixtures/connection-memory-server.js';
import { holdConnection } from './held-connections.js';
import { exchange } from './raw-http.js';

/**
 * Memory a server holds per connection (issue 41, finding 3, docs/security.md "Pipelining and
 * clients that do not read"): the reference app, served through each adapter in turn by a process of
 * its own, which reports its heap and off-heap memory after full collections. For each adapter the
 * test opens 60 idle keep-alive connections (one request answered and read), then 16 that pipeline
 * 32 `GET /openapi.json` each and never read, and divides what each set added by its count. The
 * kernel's socket buffers are not the process's memory and are not counted.
 */
const IDLE_CONNECTIONS = 60;
const UNREAD_CONNECTIONS = 16;
const OPENAPI = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n';

/** An idle keep-alive connection: node's socket, parser and timers, and the adapter's own state. */
const IDLE_BOUND = 32 * 1024;
/**
 * A connection that does not read holds its one response in progress (the OpenAPI document, which
 * its socket keeps past what the kernel took) and, past it, at most this much: the parsed requests
 * waiting behind it and its socket.
 */
const UNREAD_BOUND_PAST_RESPONSE = 128 * 1024;

const fixture = fileURLToPath(new URL('./fixtures/connection-memory-server.ts', import.meta.url));

let child: ChildProcess;
/** Asks the fixture server something over IPC, and resolves with its answer. */
function ask<T>(question: Question): Promise<T> {
  const answer = once(child, 'message').then(([reply]) => reply as T);
  child.send(question);
  return answer;
}

/** Heap and off-heap bytes (buffers included) after full collections. */
async function held(): Promise<number> {
  const usage = await ask<NodeJS.MemoryUsage>('measure');
  return usage.heapUsed + usage.external;
}

beforeAll(async () => {
  child = fork(fixture, [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines = createInterface({ input: child.stdout! });
  await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the fixture server exited with ${String(code)} before it was ready`);
    }),
  ]);
}, 120_000);
afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = once(child, 'exit');
    child.disconnect();
    await exited;
  }
});

describe.each(ADAPTERS.map((adapter) => ({ adapter })))(
  'memory per connection through $adapter',
  ({ adapter }) => {
    const clients: net.Socket[] = [];
    let port = 0;
    let documentBytes = 0;
    let baseline = 0;
    let afterIdle = 0;
    let idle = 0;

    beforeAll(async () => {
      port = await ask<number>({ serve: adapter });
      // Whatever is made once (the document, code paths, pools) before the baseline.
      for (let i = 0; i < 3; i++) {
        for (const target of ['/books/1', '/openapi.json']) {
          const reply = await exchange(
            port,
            `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          );
          expect(reply.status).toBe(200);
          if (target === '/openapi.json') documentBytes = Number(reply.headers['content-length']);
        }
      }
      await vi.waitFor(async () => expect((await ask<ServerState>('state')).open).toBe(0), {
        timeout: 60_000,
        interval: 20,
      });
      baseline = await held();
    }, 120_000);
    afterAll(() => {
      for (const client of clients.splice(0)) client.destroy();
    });

    it(`holds at most ${IDLE_BOUND / 1024} KiB for an idle keep-alive connection`, async () => {
      for (let i = 0; i < IDLE_CONNECTIONS; i++) {
        const connection = await holdConnection('127.0.0.1', port, '127.0.0.1');
        clients.push(connection.socket);
        expect(connection.outcome).toBe('held');
      }
      await vi.waitFor(async () => expect((await ask<ServerState>('state')).open).toBe(IDLE_CONNECTIONS), {
        timeout: 60_000,
        interval: 20,
      });
      afterIdle = await held();
      idle = (afterIdle - baseline) / IDLE_CONNECTIONS;
      expect(idle).toBeLessThanOrEqual(IDLE_BOUND);
    }, 120_000);

    it(`holds one response and at most ${UNREAD_BOUND_PAST_RESPONSE / 1024} KiB more for a connection that pipelines ${DEFAULT_MAX_PIPELINED_REQUESTS} requests and never reads`, async () => {
      for (let i = 0; i < UNREAD_CONNECTIONS; i++) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.pause();
        clients.push(socket);
        socket.write(OPENAPI.repeat(DEFAULT_MAX_PIPELINED_REQUESTS));
      }
      // Each socket holds what the kernel would not take: the client does not read. Bounded
      // generously: a loaded machine takes a second or more to build each document.
      await vi.waitFor(
        async () => {
          const state = await ask<ServerState>('state');
          expect(state.open).toBe(IDLE_CONNECTIONS + UNREAD_CONNECTIONS);
          expect(state.unread).toBe(UNREAD_CONNECTIONS);
        },
        { timeout: 240_000, interval: 100 },
      );
      const unread = ((await held()) - afterIdle) / UNREAD_CONNECTIONS;
      console.info(
        `${adapter}: ${Math.round(idle)} B per idle connection, ${Math.round(unread)} B per unread one (document ${documentBytes} B)`,
      );
      expect(unread).toBeLessThanOrEqual(documentBytes + UNREAD_BOUND_PAST_RESPONSE);
    }, 300_000);
  },
);
