import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { IdTable } from '../../examples/reference-app/id-table.js';

describe('IdTable (the reference app memory stores rows)', () => {
  // Ids as the stores give them: counting up from 1, some deleted; lookups of any number a URL can carry.
  test.prop([
    fc.integer({ min: 0, max: 3000 }),
    fc.array(fc.integer({ min: 1, max: 3000 }), { maxLength: 100 }),
    fc.array(fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.constant(999_999_999_999_999), fc.double()), {
      maxLength: 50,
    }),
  ])('holds what a Map by id holds, in id order', (count, deleted, probes) => {
    const table = new IdTable<string>();
    const model = new Map<number, string>();
    for (let id = 1; id <= count; id++) {
      table.set(id, `row ${id}`);
      model.set(id, `row ${id}`);
    }
    for (const id of deleted) {
      table.delete(id);
      model.delete(id);
    }
    for (const id of [...probes, ...deleted, count, count + 1]) expect(table.get(id)).toBe(model.get(id));
    expect([...table.values()]).toEqual([...model.values()]);
  });

  it('replaces a row in place', () => {
    const table = new IdTable<string>();
    table.set(1, 'first');
    table.set(1, 'second');
    expect([...table.values()]).toEqual(['second']);
  });
});
