/**
 * IP address syntax without `node:net`, so that rate limiting runs the same on every runtime
 * (Node, Bun, Deno, workerd): the text forms `net.isIP` accepts, zone identifiers excluded.
 */

/** A dotted quad: four decimal octets 0-255 without leading zeros (RFC 3986 section 3.2.2, `dec-octet`). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Whether every group is one to four hex digits, the last possibly a dotted quad; how many 16-bit groups. */
function groupCount(groups: readonly string[], lastMayBeIpv4: boolean): number {
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] as string;
    if (HEX_GROUP.test(group)) count += 1;
    else if (lastMayBeIpv4 && i === groups.length - 1 && IPV4.test(group)) count += 2;
    else return -1;
  }
  return count;
}

/**
 * The text forms of RFC 4291 section 2.2: eight hex groups, `::` for one or more zero groups (once),
 * and a dotted quad for the last 32 bits.
 */
function isIpv6(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap === -1) return groupCount(text.split(':'), true) === 8;
  if (text.indexOf('::', gap + 1) !== -1) return false;
  const head = text.slice(0, gap);
  const tail = text.slice(gap + 2);
  const headCount = head === '' ? 0 : groupCount(head.split(':'), false);
  const tailCount = tail === '' ? 0 : groupCount(tail.split(':'), true);
  return headCount >= 0 && tailCount >= 0 && headCount + tailCount <= 7;
}

/**
 * `4` for an IPv4 dotted quad, `6` for an IPv6 address, `0` for anything else: the answers of
 * Node's `net.isIP` for text without a zone (`%eth0`).
 *
 * @example ipFamily('::ffff:192.0.2.7') // 6
 */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  return text.includes(':') && isIpv6(text) ? 6 : 0;
}
