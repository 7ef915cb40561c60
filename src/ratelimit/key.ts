import { integerInRange } from '../errors/option-checks.js';
import type { Context } from '../http/types.js';
import { addressGroup, clientAddress, parseAddressBlock } from './client-address.js';

/** Options of {@link defaultRateLimitKey}. */
export interface DefaultKeyOptions {
  /**
   * Proxies whose `X-Forwarded-For` is believed: addresses or CIDR blocks (`10.0.0.0/8`, `fd00::/8`).
   * Default: none, so the header is ignored and the socket peer is the client.
   */
  readonly trustProxy?: readonly string[];
  /** IPv6 clients are grouped by this prefix length (default 56). */
  readonly ipv6Prefix?: number;
}

const PEER_CACHE_LIMIT = 4096;

/** Default IPv6 grouping: a /56 is the usual delegation to one end site (RFC 6177). */
export const DEFAULT_IPV6_PREFIX = 56;

/**
 * The default bucket of a request: `user:<sub>` for an authenticated principal, else
 * `ip:<address>` (IPv6 as its `/56` network; see {@link clientAddress} for `X-Forwarded-For`), else
 * `ip:unknown` when the adapter knows no peer address (all such requests share one bucket).
 * Reads its options once and throws a `TypeError` for a bad allow-list entry or prefix.
 *
 * @example
 * const key = defaultRateLimitKey({ trustProxy: ['10.0.0.0/8'] });
 * key(ctx); // 'user:alice' or 'ip:198.51.100.9' or 'ip:2001:db8:1:200:0:0:0:0/56'
 */
export function defaultRateLimitKey(options: DefaultKeyOptions = {}): (ctx: Context) => string {
  const ipv6Prefix = integerInRange(
    'rateLimit',
    'ipv6Prefix',
    options.ipv6Prefix,
    DEFAULT_IPV6_PREFIX,
    1,
    128,
  );
  const trustProxy = options.trustProxy ?? [];
  if (!Array.isArray(trustProxy))
    throw new TypeError('rateLimit: trustProxy must be an array of addresses or CIDRs');
  const trusted = trustProxy.map(parseAddressBlock);

  // Peers repeat (keep-alive, the same clients): the key of a bare socket address is remembered
  // rather than parsed again on every request. Bounded; cleared when full.
  const byPeer = new Map<string, string>();

  return function rateLimitKey(ctx) {
    if (ctx.var.principal !== undefined) return `user:${ctx.var.principal.sub}`;
    const peer = ctx.request.remoteAddress;
    const forwardedFor = trusted.length === 0 ? undefined : ctx.request.headers.get('x-forwarded-for');
    const cacheable = forwardedFor === undefined && peer !== undefined;
    if (cacheable) {
      const known = byPeer.get(peer);
      if (known !== undefined) return known;
    }
    const address = clientAddress(peer, forwardedFor, trusted);
    const key = address === undefined ? 'ip:unknown' : `ip:${addressGroup(address, ipv6Prefix)}`;
    if (cacheable) {
      if (byPeer.size >= PEER_CACHE_LIMIT) byPeer.clear();
      byPeer.set(peer, key);
    }
    return key;
  };
}
