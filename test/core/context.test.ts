import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RequestContext } from '../../src/core/context.js';
import { contextKey } from '../../src/http/types.js';
import { requestView } from '../support/request.js';
import { recordingLogger } from './send.js';

const context = () => new RequestContext(requestView('GET', '/books'), 'req-1', recordingLogger());

describe('context state', () => {
  it('keeps a value per key, tells keys with the same description apart, and overwrites on set', () => {
    const ctx = context();
    const first = contextKey<number>('count');
    const second = contextKey<number>('count');
    expect(ctx.get(first)).toBeUndefined();
    ctx.set(first, 1);
    ctx.set(second, 2);
    ctx.set(first, 3);
    expect(ctx.get(first)).toBe(3);
    expect(ctx.get(second)).toBe(2);
  });

  // The model: a Map from key to the last value set.
  test.prop([fc.array(fc.tuple(fc.nat(7), fc.integer()), { maxLength: 40 })])(
    'answers like a Map for any sequence of sets',
    (writes) => {
      const keys = Array.from({ length: 8 }, (_, i) => contextKey<number>(`key ${i}`));
      const ctx = context();
      const model = new Map<number, number>();
      for (const [key, value] of writes) {
        ctx.set(keys[key]!, value);
        model.set(key, value);
      }
      for (const [i, key] of keys.entries()) expect(ctx.get(key)).toBe(model.get(i));
    },
  );
});
