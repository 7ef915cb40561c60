/**
 * Connection shares: how many connections one client site may hold, and the slots kept for sites
 * that hold few, so that no single site (nor a handful) can take every slot of a server. The
 * decision is on plain numbers; `boundedServer` counts (docs/security.md, "Connection shares").
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { addressGroup, parseIp } from '../ratelimit/client-address.js';

/**
 * A group holding fewer connections than this is small: it may still open one when every other
 * slot but the reserved ones is taken (a browser opens up to six at once; four let a new client
 * work, and keep each group's use of the reserve small).
 */
export const FEW_CONNECTIONS = 4;

/** The numbers {@link admitsConnection} decides on. */
export interface ConnectionShares {
  /** Connections open at once. */
  readonly maxConnections: number;
  /** Connections one address group holds at once. */
  readonly maxConnectionsPerAddress: number;
  /** Slots only groups holding fewer than {@link FEW_CONNECTIONS} may take. */
  readonly reservedConnections: number;
}

/**
 * The group a peer's connections count in: an IPv4 address itself (also IPv4-mapped, as node
 * reports it on a dual-stack socket), an IPv6 address by its network of `ipv6Prefix` bits (the
 * rate limiter's grouping, /56 by default: one site's delegation, RFC 6177), `unknown` when the
 * socket no longer knows its peer.
 *
 * @example connectionGroup('2001:db8:1:2ff::1', 56); // '2001:db8:1:200:0:0:0:0/56'
 */
export function connectionGroup(remoteAddress: string | undefined, ipv6Prefix: number): string {
  if (remoteAddress !== undefined && !remoteAddress.includes(':')) return remoteAddress;
  const address = parseIp(remoteAddress);
  return address === undefined ? 'unknown' : addressGroup(address, ipv6Prefix);
}

/**
 * Whether a new connection from a group that holds `groupOpen` of the `open` connections is let in:
 * never past the group's share or `maxConnections`, and past `maxConnections - reservedConnections`
 * only while the group is small. So every group at or above {@link FEW_CONNECTIONS} holds a
 * connection it opened when fewer than `maxConnections - reservedConnections` were open: together
 * they never hold more than that, and a new client is turned away only when the reserved slots are
 * held by groups that took at most `FEW_CONNECTIONS` each, that is by at least
 * `reservedConnections / FEW_CONNECTIONS` groups acting together.
 */
export function admitsConnection(shares: ConnectionShares, open: number, groupOpen: number): boolean {
  if (groupOpen >= shares.maxConnectionsPerAddress || open >= shares.maxConnections) return false;
  return groupOpen < FEW_CONNECTIONS || open < shares.maxConnections - shares.reservedConnections;
}

/**
 * Connections per address group and the reserved slots (`admitsConnection`): a connection refused is
 * destroyed at once, before node reads a byte of it (as node does past `maxConnections`).
 */
export function shareConnections(server: Server, shares: ConnectionShares, ipv6Prefix: number): void {
  const held = new Map<string, number>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    const group = connectionGroup(socket.remoteAddress, ipv6Prefix);
    const count = held.get(group) ?? 0;
    if (!admitsConnection(shares, open, count)) {
      socket.destroy();
      return;
    }
    open++;
    held.set(group, count + 1);
    socket.once('close', () => {
      open--;
      const left = (held.get(group) ?? 1) - 1;
      if (left === 0) held.delete(group);
      else held.set(group, left);
    });
  });
}
