/**
 * Serving a fetch handler on the runtime that runs the bundle: `Bun.serve` on Bun, `Deno.serve` on
 * Deno, on an ephemeral loopback port, printing `listening <port>` for the bench runner. The handler
 * gets what each runtime passes beside the request (Bun's server, Deno's connection info), as a
 * program written for that runtime does: Hono reads the client's address from it with `hono/bun`
 * or `hono/deno`, `toFetchHandler` by itself.
 */

interface BunServer {
  readonly port: number;
}
type RuntimeHandler = (request: Request, env: never) => Response | Promise<Response>;
interface Runtimes {
  readonly Bun?: {
    serve(options: { hostname: string; port: number; fetch: RuntimeHandler }): BunServer;
    readonly env: Record<string, string | undefined>;
  };
  readonly process?: { on(signal: string, listener: () => void): void; exit(code: number): never };
  readonly Deno?: {
    serve(
      options: { hostname: string; port: number; onListen(address: { port: number }): void },
      handler: RuntimeHandler,
    ): unknown;
    readonly env: { toObject(): Record<string, string> };
    addSignalListener(signal: string, listener: () => void): void;
    exit(code: number): never;
  };
}

const { Bun, Deno, process } = globalThis as Runtimes;
if (Bun === undefined && Deno === undefined)
  throw new Error('bench/runtimes: run this bundle with Bun or Deno');

/** Which runtime runs the bundle. */
export const runtime: 'bun' | 'deno' = Bun === undefined ? 'deno' : 'bun';

/** The process environment, read the way the runtime offers it. */
export const runtimeEnv = (): Record<string, string | undefined> => Bun?.env ?? Deno!.env.toObject();

const listening = (port: number) => console.log(`listening ${port}`);

// Stopped by the bench with SIGTERM: an orderly exit, so that a profiler the runtime was started
// with (BENCH_BUN_FLAGS, BENCH_DENO_FLAGS) writes its file.
if (Bun !== undefined) process?.on('SIGTERM', () => process.exit(0));
else Deno!.addSignalListener('SIGTERM', () => Deno!.exit(0));

/** Serves `fetch` on 127.0.0.1 on a free port and prints the port. */
export function serveFetch(fetch: (request: Request, env: object) => Response | Promise<Response>): void {
  if (Bun !== undefined) listening(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch }).port);
  else Deno!.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => listening(port) }, fetch);
}
