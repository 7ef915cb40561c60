import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ownerShares } from '../../src/idempotency/stores/postgres/owner-shares.js';

const OWNERS = ['alice', 'bob', 'carol'] as const;

/** One step: a claim of `owner` asks for a connection, or one of its held claims (by rank) ends. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('enter' as const), owner: fc.constantFrom(...OWNERS) }),
  fc.record({
    kind: fc.constant('leave' as const),
    owner: fc.constantFrom(...OWNERS),
    rank: fc.nat({ max: 3 }),
  }),
);

/** Lets every continuation queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('one owner’s share of the pool’s connections', () => {
  test.prop([fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 40 })])(
    'holds at most `max` per owner, hands a freed one to that owner’s oldest waiting claim, never to another owner',
    async (max, steps) => {
      const shares = ownerShares(max);
      // The model: per owner, the claims holding a connection and those waiting, in arrival order.
      const model = new Map(OWNERS.map((o) => [o, { holding: [] as number[], waiting: [] as number[] }]));
      const holding = new Map(OWNERS.map((o) => [o, [] as number[]]));
      let next = 0;
      for (const s of steps) {
        const owner = model.get(s.owner)!;
        if (s.kind === 'enter') {
          const id = next++;
          if (owner.holding.length < max) owner.holding.push(id);
          else owner.waiting.push(id);
          const entered = shares.enter(s.owner);
          if (entered === undefined) holding.get(s.owner)!.push(id);
          else void entered.then(() => holding.get(s.owner)!.push(id));
        } else {
          if (owner.holding.length === 0) continue;
          const ended = owner.holding.splice(s.rank % owner.holding.length, 1)[0]!;
          const waiter = owner.waiting.shift();
          if (waiter !== undefined) owner.holding.push(waiter);
          const held = holding.get(s.owner)!;
          held.splice(held.indexOf(ended), 1);
          shares.leave(s.owner);
        }
        await settle();
        for (const o of OWNERS) {
          expect([...holding.get(o)!].sort((a, b) => a - b)).toEqual(
            [...model.get(o)!.holding].sort((a, b) => a - b),
          );
          expect(holding.get(o)!.length).toBeLessThanOrEqual(max);
        }
      }
    },
  );

  it('forgets an owner once it holds nothing, so an owner that comes back starts afresh', async () => {
    const shares = ownerShares(1);
    expect(shares.enter('alice')).toBeUndefined();
    const second = shares.enter('alice');
    expect(second).toBeInstanceOf(Promise);
    shares.leave('alice');
    await second;
    shares.leave('alice');
    expect(shares.enter('alice')).toBeUndefined();
  });
});
