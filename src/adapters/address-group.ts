import { isIPv6 } from 'node:net';

/**
 * The group a client address counts in for the per-address connection share: an IPv4 address
 * itself (also when node reports it IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address by its /64
 * (RFC 4291 section 2.5.4: the interface identifier is the low 64 bits, which one host chooses
 * freely), `unknown` when the socket no longer knows its peer.
 */
export function addressGroup(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const hextets = [
    ...left,
    ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'),
    ...right,
  ];
  return `${hextets
    .slice(0, 4)
    .map((h) => Number.parseInt(h, 16).toString(16))
    .join(':')}::/64`;
}
