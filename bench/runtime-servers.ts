/**
 * The servers of `npm run bench` on Bun and Deno (issue 42): on each runtime, the reference app
 * through `toFetchHandler` on the runtime's own server, the Hono peer with the middleware of the Node
 * one, and a bare floor answering with the app's captured bytes (`bench/runtimes/`). Their ratios
 * are taken against Hono and the floor on the same runtime, the stack users of that runtime pick
 * and the most it can serve.
 */
import type { OtherRuntime } from './servers.js';

export const RUNTIME_SERVER_KINDS = ['app', 'hono', 'bare'] as const;
type Kind = (typeof RUNTIME_SERVER_KINDS)[number];
export const OTHER_RUNTIMES = ['bun', 'deno'] as const satisfies readonly OtherRuntime[];

/** `app@bun`, `hono@deno`, ...: a server's name says what it is and where it runs. */
export type RuntimeServerName = `${Kind}@${OtherRuntime}`;

export const RUNTIME_SERVERS: readonly RuntimeServerName[] = OTHER_RUNTIMES.flatMap((runtime) =>
  RUNTIME_SERVER_KINDS.map((kind) => `${kind}@${runtime}` as const),
);

/** What a name says, or `undefined` for a server that runs on Node. */
export function runtimeServer(name: string): { kind: Kind; runtime: OtherRuntime } | undefined {
  if (!(RUNTIME_SERVERS as readonly string[]).includes(name)) return undefined;
  const [kind, runtime] = name.split('@') as [Kind, OtherRuntime];
  return { kind, runtime };
}

/** The bundle's entry point of a runtime server. */
export const runtimeEntry = (kind: Kind) => `bench/runtimes/${kind}.ts`;

/** How the runtimes are named in tables and the chart. */
export const RUNTIME_TITLES: Readonly<Record<OtherRuntime, string>> = { bun: 'Bun', deno: 'Deno' };

/**
 * The servers a row's ratios are taken against: on Node Fastify and the bare floor, on Bun or Deno
 * Hono and the floor on the same runtime.
 */
export function referencesOf(name: string): { readonly peer: string; readonly bare: string } {
  const server = runtimeServer(name);
  return server === undefined
    ? { peer: 'fastify', bare: 'bare' }
    : { peer: `hono@${server.runtime}`, bare: `bare@${server.runtime}` };
}

export const RUNTIME_COLOURS: Readonly<Record<RuntimeServerName, string>> = {
  'app@bun': '#2f855a',
  'hono@bun': '#dd6b20',
  'bare@bun': '#c6f6d5',
  'app@deno': '#553c9a',
  'hono@deno': '#c05621',
  'bare@deno': '#e9d8fd',
};
