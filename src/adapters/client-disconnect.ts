/**
 * Whether an error only says that the client went away: its connection reset (`ECONNRESET`), a
 * write to a connection it closed (`EPIPE`), an upload it aborted (`ECONNABORTED`), or a stream
 * cut short by either (`ERR_STREAM_PREMATURE_CLOSE`, `ERR_STREAM_DESTROYED`). Nothing a server can
 * act on, and something any client can cause at will: the adapters never log it, and an error
 * listener of your own (Koa's `app.on('error')`) should skip it the same way.
 *
 * @example app.on('error', (error) => { if (!isClientDisconnect(error)) log.error(error) })
 */
export function isClientDisconnect(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && CLIENT_GONE.has(code);
}

const CLIENT_GONE: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
]);
