/**
 * Koa's default `error` listener (`app.onerror`) prints every error's stack on stderr, and Koa
 * emits one each time a client resets or breaks the pipe of a connection whose response it
 * watches (`on-finished`): a line with frames and source paths that any client can cause at will.
 * The Koa drivers leave client disconnects out of that default listener, once per app. A listener
 * of your own (`app.on('error', ...)`) is left alone: skip them there with `isClientDisconnect`.
 */
import type { Context as KoaContext } from 'koa';
import { isClientDisconnect } from '../client-disconnect.js';

type KoaApp = KoaContext['app'];

const quieted = new WeakSet<KoaApp>();

/** Wraps `app`'s default error listener, if it has it, so that client disconnects are not printed. */
export function quietClientDisconnects(app: KoaApp): void {
  if (quieted.has(app)) return;
  quieted.add(app);
  const printStack = app.onerror;
  if (!app.listeners('error').includes(printStack)) return;
  app.removeListener('error', printStack);
  app.on('error', function koaErrorUnlessClientGone(error: Error, ctx?: KoaContext) {
    // Gone only if its own connection is: an upstream's reset in a middleware is still printed.
    if (isClientDisconnect(error) && (ctx === undefined || ctx.req.socket?.destroyed !== false)) return;
    printStack.call(app, error);
  });
}
