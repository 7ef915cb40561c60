import { BlockList } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RequestContext } from '../../src/core/context.js';
import type { Logger, Principal } from '../../src/http/types.js';
import {
  addressGroup,
  clientAddress,
  defaultRateLimitKey,
  formatIp,
  parseAddressBlock,
  parseIp,
} from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';

const silent: Logger = { error: () => {}, warn: () => {} };

function context(remoteAddress: string, headers: Record<string, string> = {}, principal?: Principal) {
  const ctx = new RequestContext(requestView('GET', '/books', { headers, remoteAddress }), 'req-1', silent);
  ctx.var.principal = principal;
  return ctx;
}

describe('when parsing addresses', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:c000:0207', '192.0.2.7'],
    ['0:0:0:0:0:ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8::1', '2001:db8:0:0:0:0:0:1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['::', '0:0:0:0:0:0:0:0'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['64:ff9b::192.0.2.7', '64:ff9b:0:0:0:0:c000:207'],
    ['::192.0.2.7', '0:0:0:0:0:0:c000:207'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
  ])('reads %s as %s', (text, expected) => {
    expect(formatIp(parseIp(text)!)).toBe(expected);
  });

  it.each(['', 'unknown', '1.2.3', '1.2.3.4.5', '2001:db8:::1', 'example.com', '_hidden'])(
    'rejects %j',
    (text) => {
      expect(parseIp(text)).toBeUndefined();
    },
  );

  const ipv6Arb = fc.ipV6();
  test.prop([ipv6Arb])('expands any IPv6 text to the address node:net agrees is the same', (text) => {
    const parsed = parseIp(text)!;
    expect(parsed).toBeDefined();
    const reparsed = parseIp(formatIp(parsed))!;
    expect(reparsed).toEqual(parsed);
    if (parsed.family === 6) {
      // A second opinion: the URL parser's canonical (RFC 5952) form of the same address.
      const canonical = new URL(`http://[${text}]/`).hostname;
      expect(formatIp(parseIp(canonical.slice(1, -1))!)).toBe(formatIp(parsed));
    }
  });
});

describe('when grouping IPv6 clients by prefix', () => {
  it('puts every address of one /56 into one bucket', () => {
    const a = addressGroup(parseIp('2001:db8:1:200::1')!, 56);
    const b = addressGroup(parseIp('2001:db8:1:2ff:ffff:ffff:ffff:ffff')!, 56);
    expect(a).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(b).toBe(a);
  });

  it('keeps neighbouring /56 networks apart', () => {
    expect(addressGroup(parseIp('2001:db8:1:300::1')!, 56)).not.toBe(
      addressGroup(parseIp('2001:db8:1:200::1')!, 56),
    );
  });

  it('honours a configured prefix', () => {
    expect(addressGroup(parseIp('2001:db8:1:2ff::1')!, 48)).toBe('2001:db8:1:0:0:0:0:0/48');
    expect(addressGroup(parseIp('2001:db8::1')!, 128)).toBe('2001:db8:0:0:0:0:0:1/128');
  });

  it('leaves IPv4 (and IPv4-mapped IPv6) whole', () => {
    expect(addressGroup(parseIp('::ffff:198.51.100.9')!, 56)).toBe('198.51.100.9');
  });
});

describe('when reading X-Forwarded-For', () => {
  const proxies = ['10.0.0.0/8', 'fd00::/8'].map(parseAddressBlock);

  it('ignores it when no proxy is trusted (the default)', () => {
    expect(formatIp(clientAddress('203.0.113.5', '198.51.100.9', [])!)).toBe('203.0.113.5');
  });

  it('ignores it when the peer is not a trusted proxy', () => {
    expect(formatIp(clientAddress('203.0.113.5', '198.51.100.9', proxies)!)).toBe('203.0.113.5');
  });

  it('walks from the right past trusted proxies to the first untrusted address', () => {
    const xff = '1.1.1.1, 198.51.100.9, 10.1.1.1, 10.2.2.2';
    expect(formatIp(clientAddress('10.0.0.1', xff, proxies)!)).toBe('198.51.100.9');
  });

  it('never believes elements left of the first untrusted one (client-written)', () => {
    // The client sent "X-Forwarded-For: 10.9.9.9" to pose as a proxy; the proxy appended its peer.
    expect(formatIp(clientAddress('10.0.0.1', '10.9.9.9, 198.51.100.9', proxies)!)).toBe('198.51.100.9');
  });

  it('accepts ports and bracketed IPv6 elements, and IPv4-mapped peers', () => {
    expect(formatIp(clientAddress('::ffff:10.0.0.1', '198.51.100.9:4711', proxies)!)).toBe('198.51.100.9');
    expect(formatIp(clientAddress('fd00::2', '[2001:db8::7]:443', proxies)!)).toBe('2001:db8:0:0:0:0:0:7');
  });

  it('stops at the last trusted hop when an element is not an address', () => {
    expect(formatIp(clientAddress('10.0.0.1', '198.51.100.9, garbage, 10.3.3.3', proxies)!)).toBe('10.3.3.3');
  });

  it('rejects malformed allow-list entries at start-up', () => {
    for (const entry of ['10.0.0.0/33', 'fd00::/129', 'proxy.internal', '10.0.0.0/', '10.0.0.0/-1']) {
      expect(() => parseAddressBlock(entry)).toThrow(TypeError);
    }
  });

  // node's net.BlockList is the independent model of block membership (it is also the alternative
  // weighed in docs/ratelimit.md, "Trusted proxies").
  const v4 = fc.ipV4();
  const v6 = fc.ipV6().filter((text) => parseIp(text)?.family === 6);
  const block = fc.oneof(
    fc
      .tuple(v4, fc.integer({ min: 0, max: 32 }))
      .map(([address, prefix]) => ({ address, prefix, v: 4 as const })),
    fc
      .tuple(v6, fc.integer({ min: 0, max: 128 }))
      .map(([address, prefix]) => ({ address, prefix, v: 6 as const })),
  );
  test.prop([fc.array(block, { minLength: 1, maxLength: 4 }), fc.oneof(v4, v6), fc.oneof(v4, v6)])(
    'trusts a peer exactly when net.BlockList holds it in one of the blocks',
    (blocks, peer, forwarded) => {
      // One list per family: BlockList lets an IPv6 block covering ::ffff:0:0/96 hold IPv4
      // addresses; the library keeps the families apart (an IPv4 proxy is trusted by IPv4 entries).
      const family = parseIp(peer)!.family;
      const model = new BlockList();
      for (const b of blocks.filter((x) => x.v === family))
        model.addSubnet(b.address, b.prefix, family === 4 ? 'ipv4' : 'ipv6');
      const trusted = blocks.map((b) => parseAddressBlock(`${b.address}/${b.prefix}`));
      // A trusted peer hands the walk on to the forwarded address; an untrusted one is the client.
      const expected = model.check(peer, family === 4 ? 'ipv4' : 'ipv6') ? forwarded : peer;
      expect(formatIp(clientAddress(peer, forwarded, trusted)!)).toBe(formatIp(parseIp(expected)!));
    },
  );

  it('reads IPv4-mapped blocks as IPv4 blocks', () => {
    expect(parseAddressBlock('::ffff:10.0.0.0/104')).toEqual(parseAddressBlock('10.0.0.0/8'));
  });
});

describe('the default key', () => {
  it('is the user for an authenticated request', () => {
    const principal: Principal = { sub: 'alice', scopes: new Set(), claims: {} };
    expect(defaultRateLimitKey()(context('203.0.113.5', {}, principal))).toBe('user:alice');
  });

  it('is the peer address otherwise, a spoofed X-Forwarded-For changing nothing by default', () => {
    const key = defaultRateLimitKey();
    expect(key(context('203.0.113.5'))).toBe('ip:203.0.113.5');
    expect(key(context('203.0.113.5', { 'x-forwarded-for': '1.2.3.4' }))).toBe('ip:203.0.113.5');
  });

  it('follows X-Forwarded-For only through trusted proxies', () => {
    const key = defaultRateLimitKey({ trustProxy: ['127.0.0.1'] });
    expect(key(context('127.0.0.1', { 'x-forwarded-for': '198.51.100.9' }))).toBe('ip:198.51.100.9');
    expect(key(context('203.0.113.5', { 'x-forwarded-for': '198.51.100.9' }))).toBe('ip:203.0.113.5');
  });

  it('groups IPv6 peers by the configured prefix', () => {
    expect(defaultRateLimitKey()(context('2001:db8:1:2ab::9'))).toBe('ip:2001:db8:1:200:0:0:0:0/56');
    expect(defaultRateLimitKey({ ipv6Prefix: 64 })(context('2001:db8:1:2ab::9'))).toBe(
      'ip:2001:db8:1:2ab:0:0:0:0/64',
    );
  });

  it('rejects a bad prefix at start-up', () => {
    expect(() => defaultRateLimitKey({ ipv6Prefix: 0 })).toThrow(TypeError);
    expect(() => defaultRateLimitKey({ ipv6Prefix: 129 })).toThrow(TypeError);
  });
});
