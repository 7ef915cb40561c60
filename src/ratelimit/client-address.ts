/**
 * Client addresses for rate-limit keys: parsing (IPv4, IPv6, IPv4-mapped IPv6), grouping IPv6 by
 * prefix, and `X-Forwarded-For` read only through proxies on an allow-list.
 */
import { ipFamily } from './ip-syntax.js';

/** A parsed address: 4 bytes (IPv4) or 16 bytes (IPv6). IPv4-mapped IPv6 is parsed as IPv4. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

/** An address block: an address plus a prefix length in bits. */
export interface AddressBlock {
  readonly address: IpAddress;
  readonly prefix: number;
}

function ipv4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

function ipv6Bytes(text: string): number[] {
  let groupsText = text;
  let tail: number[] = [];
  if (text.includes('.')) {
    // An embedded dotted quad (RFC 4291 section 2.2, form 3) fills the last 32 bits.
    const cut = text.lastIndexOf(':');
    tail = ipv4Bytes(text.slice(cut + 1));
    groupsText = text.slice(0, cut);
    if (groupsText.endsWith(':')) groupsText += ':'; // `::1.2.3.4`, `64:ff9b::1.2.3.4`
  }
  const groupCount = 8 - tail.length / 2;
  const [head = '', rest] = groupsText.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : groupCount - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups].map((g) =>
    Number.parseInt(g, 16),
  );
  return [...groups.flatMap((g) => [g >> 8, g & 0xff]), ...tail];
}

/**
 * Parse an address as a socket or proxy reports it. Strips an IPv6 zone (`%eth0`) and turns
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`, RFC 4291 section 2.5.5.2) into IPv4; `undefined` when the
 * text is not an IP address.
 *
 * @example
 * parseIp('::ffff:192.0.2.7'); // { family: 4, bytes: [192, 0, 2, 7] }
 */
export function parseIp(text: string | undefined): IpAddress | undefined {
  if (text === undefined) return undefined;
  const zone = text.indexOf('%');
  const plain = (zone === -1 ? text : text.slice(0, zone)).trim();
  const family = ipFamily(plain);
  if (family === 4) return { family: 4, bytes: ipv4Bytes(plain) };
  if (family !== 6) return undefined;
  const bytes = ipv6Bytes(plain.toLowerCase());
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? { family: 4, bytes: bytes.slice(12) } : { family: 6, bytes };
}

/** The first `prefix` bits of `bytes`, the rest zeroed. */
function maskBytes(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
}

/** Text form of an address: dotted quad, or eight lower-case hex groups. */
export function formatIp(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((address.bytes[i] ?? 0) << 8) | (address.bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/**
 * The rate-limit identity of an address: IPv4 as is; IPv6 reduced to its `/ipv6Prefix` network
 * (default /56, a typical end-site delegation), so a client rotating through its own addresses
 * stays in one bucket.
 *
 * @example
 * addressGroup(parseIp('2001:db8:1:2ff::1')!, 56); // '2001:db8:1:200:0:0:0:0/56'
 */
export function addressGroup(address: IpAddress, ipv6Prefix: number): string {
  if (address.family === 4) return formatIp(address);
  return `${formatIp({ family: 6, bytes: maskBytes(address.bytes, ipv6Prefix) })}/${ipv6Prefix}`;
}

/**
 * Parse an allow-list entry (`10.0.0.1`, `10.0.0.0/8`, `fd00::/8`, `::1`). Throws a `TypeError`
 * for anything else, so a typo fails at start-up.
 */
export function parseAddressBlock(entry: string): AddressBlock {
  const slash = entry.indexOf('/');
  const address = parseIp(slash === -1 ? entry : entry.slice(0, slash));
  if (address === undefined)
    throw new TypeError(`rateLimit: trustProxy entry is not an address or CIDR: ${entry}`);
  const bits = address.family === 4 ? 32 : 128;
  if (slash === -1) return { address, prefix: bits };
  const prefixText = entry.slice(slash + 1);
  let prefix = Number(prefixText);
  // `::ffff:10.0.0.0/104` is an IPv4-mapped block: its prefix counts the 96 mapping bits.
  if (address.family === 4 && entry.slice(0, slash).includes(':')) prefix -= 96;
  if (!/^\d{1,3}$/.test(prefixText) || !Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new TypeError(`rateLimit: trustProxy entry has a bad prefix length: ${entry}`);
  }
  return { address, prefix };
}

/** Whether `address` lies in one of `blocks`. */
function inBlocks(address: IpAddress, blocks: readonly AddressBlock[]): boolean {
  return blocks.some(({ address: network, prefix }) => {
    if (network.family !== address.family) return false;
    const a = maskBytes(address.bytes, prefix);
    const b = maskBytes(network.bytes, prefix);
    return a.every((byte, i) => byte === b[i]);
  });
}

/** One `X-Forwarded-For` element, without a port (`1.2.3.4:5678`, `[2001:db8::1]:443`). */
function forwardedElement(text: string): IpAddress | undefined {
  const value = text.trim();
  if (value.startsWith('[')) return parseIp(value.slice(1, value.indexOf(']')));
  const colon = value.indexOf(':');
  if (colon !== -1 && colon === value.lastIndexOf(':') && value.includes('.'))
    return parseIp(value.slice(0, colon));
  return parseIp(value);
}

/**
 * The client's address. The socket peer is the client unless it is a trusted proxy; then
 * `X-Forwarded-For` is walked from the right (the element the nearest proxy appended), skipping
 * trusted proxies, and the first untrusted address is the client. Elements further left were written
 * by that client and are never believed. An element that is not an address stops the walk at the last
 * trusted hop. With no trusted proxies (the default) the header is ignored entirely.
 *
 * @example
 * clientAddress('10.0.0.2', '198.51.100.9, 10.0.0.5', [parseAddressBlock('10.0.0.0/8')]);
 * // { family: 4, bytes: [198, 51, 100, 9] }
 */
export function clientAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: readonly AddressBlock[],
): IpAddress | undefined {
  const peer = parseIp(remoteAddress);
  if (peer === undefined || forwardedFor === undefined || !inBlocks(peer, trustedProxies)) return peer;
  const hops = forwardedFor.split(',');
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = forwardedElement(hops[i]!);
    if (hop === undefined) return current;
    current = hop;
    if (!inBlocks(hop, trustedProxies)) return hop;
  }
  return current;
}
