import type { Logger } from '../http/types.js';

/**
 * The client's address from what a fetch runtime passes beside the request: the second argument
 * of its fetch handler, which Hono keeps as `c.env`. Bun passes its server (`requestIP`), Deno its
 * serve info (`remoteAddr`), `@hono/node-server` its bindings (the node request as `incoming`).
 * Cloudflare Workers pass their bindings, which carry no address (it is the `CF-Connecting-IP`
 * header their edge sets): undefined there, as for anything else.
 */
export function runtimePeerAddress(request: Request, env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const runtime = env as {
    readonly requestIP?: unknown;
    readonly remoteAddr?: { readonly hostname?: unknown };
    readonly incoming?: { readonly socket?: { readonly remoteAddress?: unknown } };
  };
  let address: unknown;
  if (typeof runtime.requestIP === 'function') {
    address = (runtime.requestIP(request) as { readonly address?: unknown } | null)?.address;
  } else if (runtime.remoteAddr !== undefined) {
    address = runtime.remoteAddr.hostname;
  } else {
    address = runtime.incoming?.socket?.remoteAddress;
  }
  return typeof address === 'string' && address !== '' ? address : undefined;
}

/**
 * A warning, logged the first time a request comes without a client address and never again:
 * anonymous callers then share one rate-limit bucket (and one idempotency owner), which a
 * deployment must not find out from its first outage.
 */
export function warnOnceWithoutAddress(where: string, logger: Pick<Logger, 'warn'>): () => void {
  let warned = false;
  return function warnWithoutAddress() {
    if (warned) return;
    warned = true;
    logger.warn(
      {},
      `${where}: a request came with no client address (the runtime passed none this adapter can read, and no clientAddress option was given), so anonymous callers share one rate-limit bucket; pass clientAddress (docs/runtimes.md, "The app, once")`,
    );
  };
}
