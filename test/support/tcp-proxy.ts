import { EventEmitter } from 'node:events';
import net from 'node:net';

/** How the proxy treats traffic: forward it, cut every connection, or hold every byte. */
type ProxyMode = 'forward' | 'cut' | 'stall';

/** How the proxy is set up: `delayMs`, how late it forwards each byte, either way (default 0). */
interface TcpProxyOptions {
  readonly delayMs?: number;
}

/** Emits `forwarding` each time a new client connection is passed on to the server. */
export interface TcpProxy extends EventEmitter {
  /** The loopback port clients connect to instead of the real server's. */
  readonly port: number;
  /** Destroy every open connection and refuse new ones (reset at once): the server is unreachable. */
  cut(): void;
  /** Keep connections open but pass no byte either way, new ones included: the server hangs. */
  stall(): void;
  /** Forward again: held bytes flow on, new connections reach the server. */
  restore(): void;
  /** Connections accepted since the proxy started (each a client connection attempt). */
  readonly accepted: number;
  close(): Promise<void>;
}

interface Pair {
  readonly client: net.Socket;
  readonly server: net.Socket;
  /** Bytes held while stalled, in order, with the socket they are for. */
  readonly held: Array<{ readonly to: net.Socket; readonly chunk: Buffer }>;
}

/**
 * A TCP proxy on a loopback port in front of a real server (Redis, PostgreSQL), for fault tests:
 * the app under test connects through it, and the test cuts, stalls and restores its connections,
 * or has every byte arrive `delayMs` late.
 */
export async function tcpProxy(
  target: { readonly host: string; readonly port: number },
  { delayMs = 0 }: TcpProxyOptions = {},
): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  const pairs = new Set<Pair>();
  const events = new EventEmitter();

  const release = (pair: Pair) => {
    for (const { to, chunk } of pair.held.splice(0)) to.write(chunk);
  };

  const proxy = net.createServer((client) => {
    accepted++;
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const server = net.connect(target.port, target.host);
    const pair: Pair = { client, server, held: [] };
    pairs.add(pair);
    const pass = (to: net.Socket) => (chunk: Buffer) => {
      if (mode === 'stall') pair.held.push({ to, chunk });
      else to.write(chunk);
    };
    // A slow link: each chunk leaves `delayMs` after it came, in order (timers of one duration fire
    // in the order they were set).
    const forward =
      delayMs === 0
        ? pass
        : (to: net.Socket) => {
            const send = pass(to);
            return (chunk: Buffer) => void setTimeout(() => !to.destroyed && send(chunk), delayMs);
          };
    client.on('data', forward(server));
    server.on('data', forward(client));
    if (mode === 'forward') events.emit('forwarding');
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', end);
    server.on('error', end);
    client.on('close', end);
    server.on('close', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as net.AddressInfo;

  return Object.assign(events, {
    port,
    get accepted() {
      return accepted;
    },
    cut() {
      mode = 'cut';
      for (const pair of pairs) {
        pair.client.resetAndDestroy();
        pair.server.destroy();
      }
      pairs.clear();
    },
    stall() {
      mode = 'stall';
    },
    restore() {
      mode = 'forward';
      for (const pair of pairs) release(pair);
    },
    close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  });
}
