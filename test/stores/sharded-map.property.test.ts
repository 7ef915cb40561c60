import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ShardedMap } from '../../src/stores/sharded-map.js';

type Step =
  | { readonly op: 'set'; readonly key: string; readonly value: number }
  | { readonly op: 'delete'; readonly key: string };

// Few distinct keys, so that sets overwrite and deletes find what they delete; some share their
// last characters, which pick the shard, and some are longer than the characters hashed.
const key = fc.oneof(
  fc.constantFrom('', 'a', 'b', 'sub:1:key', 'sub:2:key', 'x'.repeat(40), `${'y'.repeat(40)}key`),
  fc.string({ maxLength: 12 }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key }),
);

describe('ShardedMap', () => {
  test.prop([fc.array(step, { maxLength: 200 }), fc.array(key, { maxLength: 20 })])(
    'answers get, delete and size as one Map does',
    (steps, probes) => {
      const sharded = new ShardedMap<number>();
      const model = new Map<string, number>();
      for (const s of steps) {
        if (s.op === 'set') {
          expect(sharded.set(s.key, s.value)).toBe(sharded);
          model.set(s.key, s.value);
        } else {
          expect(sharded.delete(s.key)).toBe(model.delete(s.key));
        }
        expect(sharded.size).toBe(model.size);
      }
      for (const probe of [...probes, ...model.keys()]) {
        expect(sharded.get(probe)).toBe(model.get(probe));
      }
    },
  );

  it('spreads keys that differ only at the end over many shards', () => {
    const sharded = new ShardedMap<number>();
    for (let i = 0; i < 4096; i++) sharded.set(`sub:7:writer:${crypto.randomUUID()}`, i);
    const shards = (sharded as unknown as { shards: (Map<string, number> | undefined)[] }).shards;
    const sizes = shards.map((shard) => shard?.size ?? 0);
    // 4 096 keys over 1 024 shards: about 4 each; none holds a large share.
    expect(sizes.filter((size) => size > 0).length).toBeGreaterThan(900);
    expect(Math.max(...sizes)).toBeLessThan(20);
  });
});
