import net from 'node:net';

/** A connection a test opened from a given local address: whether the server took it. */
export interface Held {
  readonly outcome: 'held' | 'refused';
  readonly socket: net.Socket;
}

/**
 * Connects to `port` from `localAddress`, sends one keep-alive `GET /books/1`, and resolves once the
 * server has answered (`held`: the connection stays open for the test to close) or closed the
 * connection without a byte (`refused`, as a connection past its share is).
 */
export function holdConnection(host: string, port: number, localAddress: string): Promise<Held> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, localAddress });
    let answered = false;
    socket.on('error', () => {});
    socket.on('connect', () => socket.write('GET /books/1 HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('data', (chunk) => {
      if (answered) return;
      answered = true;
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 200 ')) {
        throw new Error(`unexpected answer: ${chunk.toString('latin1').slice(0, 80)}`);
      }
      resolve({ outcome: 'held', socket });
    });
    socket.on('close', () => {
      if (!answered) resolve({ outcome: 'refused', socket });
    });
  });
}

/** Opens `count` connections from `localAddress`, one after the other; how many the server took. */
export async function holdMany(
  host: string,
  port: number,
  localAddress: string,
  count: number,
  into: net.Socket[],
): Promise<number> {
  let held = 0;
  for (let i = 0; i < count; i++) {
    const connection = await holdConnection(host, port, localAddress);
    into.push(connection.socket);
    if (connection.outcome === 'held') held++;
  }
  return held;
}
