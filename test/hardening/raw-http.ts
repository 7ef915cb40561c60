import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { toNodeHandler } from '../../src/adapters/node.js';
import type { App } from '../../src/app/app.js';

/** What came back on a raw connection: the bytes, and the status line and headers parsed from them. */
export interface RawReply {
  readonly text: string;
  readonly status: number | undefined;
  /** Lower-case names; repeated names joined with ", ". */
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Why the connection ended: the server closed it, or reset it. */
  readonly ended: 'closed' | 'reset';
}

/** Parse the first response in `text` (enough for tests: no chunked bodies). */
function parseReply(text: string, ended: RawReply['ended']): RawReply {
  const cut = text.indexOf('\r\n\r\n');
  const head = cut === -1 ? text : text.slice(0, cut);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    text,
    status: status === undefined ? undefined : Number(status),
    headers,
    body: cut === -1 ? '' : text.slice(cut + 4),
    ended,
  };
}

/** Open a connection, write `request` as given (bytes exactly), read until the server ends it. */
export function exchange(port: number, request: string | Buffer): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') resolve(parseReply(Buffer.concat(chunks).toString('latin1'), 'reset'));
      else reject(error);
    });
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve(parseReply(Buffer.concat(chunks).toString('latin1'), 'closed')));
    socket.write(request);
  });
}

/** A real node:http server for `app` on a loopback port. */
export async function listen(
  app: App,
  server: http.Server = http.createServer(toNodeHandler(app)),
): Promise<{ server: http.Server; port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
