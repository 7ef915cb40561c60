import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { afterPending, isPromise, type Pending, settleOrCollect } from '../../src/core/maybe-promise.js';

describe('settleOrCollect and afterPending', () => {
  // Each value is at hand (false) or comes later (true); the model: every value is settled once,
  // and the finish is synchronous exactly when none came later.
  test.prop([fc.array(fc.tuple(fc.integer(), fc.boolean()), { maxLength: 8 })], { seed: 42 })(
    'settle every value once and finish after them all, at once when none is a promise',
    async (values) => {
      const settled: number[] = [];
      let pending: Pending;
      for (const [value, later] of values)
        pending = settleOrCollect(pending, later ? Promise.resolve(value) : value, (v) => {
          settled.push(v);
        });
      const anyLater = values.some(([, later]) => later);
      expect(pending === undefined).toBe(!anyLater);
      const finished = afterPending(pending, () => [...settled]);
      expect(isPromise(finished)).toBe(anyLater);
      const seen = await finished;
      expect([...seen].sort((a, b) => a - b)).toEqual(values.map(([v]) => v).sort((a, b) => a - b));
      // The values at hand were settled before any that came later.
      const atHand = values.filter(([, later]) => !later).map(([v]) => v);
      expect(seen.slice(0, atHand.length)).toEqual(atHand);
    },
  );

  it('rejects with the first settling that throws, and does not finish', async () => {
    let finished = false;
    const pending = settleOrCollect(undefined, Promise.resolve(1), () => {
      throw new Error('refused');
    });
    await expect(
      afterPending(pending, () => {
        finished = true;
      }),
    ).rejects.toThrow('refused');
    expect(finished).toBe(false);
  });

  it('throws at once when a value at hand is refused', () => {
    expect(() =>
      settleOrCollect(undefined, 1, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
  });
});
