import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ExpiryQueue } from '../../src/idempotency/stores/memory/expiry-queue.js';

// Runs of pushes and shifts long enough to fill, empty and refill pages of 1 024.
const run = fc.array(fc.oneof(fc.integer({ min: 1, max: 2500 }), fc.integer({ min: -2500, max: -1 })), {
  maxLength: 12,
});

describe('ExpiryQueue', () => {
  test.prop([run])('gives back what was pushed, first in first out, as an array does', (steps) => {
    const queue = new ExpiryQueue();
    const model: [string, number][] = [];
    let pushed = 0;
    for (const step of steps) {
      if (step > 0) {
        for (let i = 0; i < step; i++) {
          pushed++;
          queue.push(`key ${pushed}`, pushed * 10);
          model.push([`key ${pushed}`, pushed * 10]);
        }
      } else {
        for (let i = 0; i < -step && model.length > 0; i++) {
          expect([queue.peekKey(), queue.peekExpiry()]).toEqual(model[0]);
          queue.shift();
          model.shift();
        }
      }
      expect(queue.length).toBe(model.length);
      expect(queue.peekExpiry()).toBe(model.length === 0 ? Number.POSITIVE_INFINITY : model[0]![1]);
      if (model.length > 0) expect(queue.peekKey()).toBe(model[0]![0]);
    }
  });
});
