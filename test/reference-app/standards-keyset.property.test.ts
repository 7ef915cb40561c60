import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../examples/reference-app/database/migration-runner.js';
import { dataMigrations } from '../../examples/reference-app/database/migrations.js';
import { PostgresStandardStore } from '../../examples/reference-app/standards/postgres-standard-store.js';
import {
  type Position,
  positionOf,
  SORTABLE,
  type SortKey,
} from '../../examples/reference-app/standards/standard-order.js';
import {
  MemoryStandardStore,
  STANDARD_STATUSES,
  type StandardStatus,
  type StandardStore,
} from '../../examples/reference-app/standards/standard-store.js';
import { dropTablesUnder } from '../support/postgres.js';
import { DATABASE_URL, serviceAvailable, uniquePrefix } from '../support/services.js';

const available = await serviceAvailable('PostgreSQL');

interface Input {
  readonly code: string;
  readonly name: string;
  readonly status: StandardStatus;
  /** Creation time in seconds from a fixed epoch: few values, so created-at ties are common. */
  readonly tick: number;
}
type Step = { readonly insert: Input } | { readonly deleteAt: number };
interface Scene {
  readonly initial: readonly Input[];
  readonly keys: readonly SortKey[];
  readonly statuses: readonly StandardStatus[] | undefined;
  readonly size: number;
  readonly backwards: boolean;
  /** What happens between the i-th and the next page fetch. */
  readonly steps: ReadonlyArray<readonly Step[]>;
}

const arbInput: fc.Arbitrary<Input> = fc.record({
  code: fc.string({ minLength: 1, maxLength: 4 }),
  name: fc.constantFrom('Alpha', 'beta', 'Gamma', 'delta', '\u00c4rger', 'zeta'),
  status: fc.constantFrom(...STANDARD_STATUSES),
  tick: fc.nat({ max: 3 }),
});
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ insert: arbInput }),
  fc.record({ deleteAt: fc.nat() }),
);
const arbKeys: fc.Arbitrary<SortKey[]> = fc
  .uniqueArray(fc.constantFrom(...SORTABLE), { maxLength: 3 })
  .chain((fields) =>
    fc.tuple(...fields.map((field) => fc.record({ field: fc.constant(field), descending: fc.boolean() }))),
  );
const arbScene: fc.Arbitrary<Scene> = fc.record({
  initial: fc.array(arbInput, { maxLength: 25 }),
  keys: arbKeys,
  statuses: fc.option(fc.uniqueArray(fc.constantFrom(...STANDARD_STATUSES), { minLength: 1 }), {
    nil: undefined,
  }),
  size: fc.integer({ min: 1, max: 6 }),
  backwards: fc.boolean(),
  steps: fc.array(fc.array(arbStep, { maxLength: 3 }), { maxLength: 12 }),
});

/** A store with a settable clock (epoch milliseconds). */
interface Harness {
  readonly store: StandardStore;
  readonly clock: { t: number };
}

/**
 * Walk every page (forwards with `after`, or backwards with `before` from the end), doing the scene's
 * steps between fetches. The model is the set of standards that matched the filter before the walk
 * and were never deleted during it: each must be met exactly once, and no id may be met twice.
 */
async function checkWalk({ store, clock }: Harness, scene: Scene): Promise<void> {
  const insert = async (input: Input) => {
    clock.t = 1_700_000_000_000 + input.tick * 1000;
    await store.create({ code: input.code, name: input.name, status: input.status }); // duplicate codes: refused
  };
  for (const input of scene.initial) await insert(input);
  const matches = (status: StandardStatus) => scene.statuses === undefined || scene.statuses.includes(status);
  const before = (await store.list()).filter((s) => matches(s.status)).map((s) => s.id);
  const deleted = new Set<string>();
  const seen: string[] = [];
  const request = { keys: scene.keys, statuses: scene.statuses, size: scene.size };
  let cursor: Position | undefined;
  let lastPage: Awaited<ReturnType<StandardStore['page']>> | undefined;
  if (scene.backwards) {
    // A backward walk starts on the last page, reached by following `next` before anything changes.
    do {
      lastPage = await store.page({ ...request, ...(cursor === undefined ? {} : { after: cursor }) });
      const last = lastPage.standards[lastPage.standards.length - 1];
      cursor = last === undefined ? undefined : positionOf(last, scene.keys);
    } while (lastPage.hasNext);
    cursor = undefined;
  }
  for (let i = 0; ; i++) {
    const page =
      i === 0 && lastPage !== undefined
        ? lastPage
        : await store.page({
            ...request,
            ...(cursor === undefined ? {} : scene.backwards ? { before: cursor } : { after: cursor }),
          });
    expect(page.standards.length).toBeLessThanOrEqual(scene.size);
    seen.push(...page.standards.map((s) => s.id));
    const edge = scene.backwards ? page.standards[0] : page.standards[page.standards.length - 1];
    if (edge === undefined || !(scene.backwards ? page.hasPrev : page.hasNext)) break;
    expect(i).toBeLessThan(200);
    cursor = positionOf(edge, scene.keys);
    for (const step of scene.steps[i] ?? []) {
      if ('insert' in step) {
        await insert(step.insert);
      } else {
        const live = await store.list();
        const victim = live[step.deleteAt % Math.max(live.length, 1)];
        if (victim !== undefined) {
          deleted.add(victim.id);
          await store.delete(victim.id);
        }
      }
    }
  }
  expect(new Set(seen).size).toBe(seen.length);
  const throughout = before.filter((id) => !deleted.has(id));
  expect(seen).toEqual(expect.arrayContaining(throughout));
}

describe('keyset pages of standards under concurrent inserts and deletes', () => {
  it('in memory: a walk never repeats or skips a standard that existed throughout', async () => {
    await fc.assert(
      fc.asyncProperty(arbScene, async (scene) => {
        const clock = { t: 0 };
        await checkWalk({ clock, store: new MemoryStandardStore(() => new Date(clock.t)) }, scene);
      }),
      { numRuns: 150 },
    );
  });

  describe.skipIf(!available)('on PostgreSQL', () => {
    const prefix = uniquePrefix('keyset').toLowerCase();
    let pool: pg.Pool;
    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
      await applyMigrations({ pool, prefix, migrations: dataMigrations(prefix) });
    });
    afterAll(async () => {
      await dropTablesUnder(prefix, pool);
      await pool.end();
    });

    it('a walk never repeats or skips a standard that existed throughout', async () => {
      await fc.assert(
        fc.asyncProperty(arbScene, async (scene) => {
          await pool.query(`TRUNCATE ${prefix}_standards`);
          const clock = { t: 0 };
          await checkWalk(
            { clock, store: new PostgresStandardStore(pool, prefix, () => new Date(clock.t)) },
            scene,
          );
        }),
        { numRuns: 40 },
      );
    });

    it('cuts the same pages as the in-memory store, in the same order, with the same links', async () => {
      await fc.assert(
        fc.asyncProperty(arbScene, async (scene) => {
          await pool.query(`TRUNCATE ${prefix}_standards`);
          const clock = { t: 0 };
          let n = 0;
          const ids = () => `id-${String(n++).padStart(4, '0')}`;
          const postgres = new PostgresStandardStore(pool, prefix, () => new Date(clock.t), ids);
          let m = 0;
          const memory = new MemoryStandardStore(
            () => new Date(clock.t),
            () => `id-${String(m++).padStart(4, '0')}`,
          );
          // One standard per code: a refused duplicate still draws an id from the PostgreSQL store
          // (its id is made before the insert) but not from the memory one, and ids would drift apart.
          const seenCodes = new Set<string>();
          for (const input of scene.initial) {
            if (seenCodes.has(input.code)) continue;
            seenCodes.add(input.code);
            clock.t = 1_700_000_000_000 + input.tick * 1000;
            const written = { code: input.code, name: input.name, status: input.status };
            await postgres.create(written);
            await memory.create(written);
          }
          // Every page a walk could ask for: from the start, and after or before each standard.
          const all = await memory.list();
          const request = { keys: scene.keys, statuses: scene.statuses, size: scene.size };
          const cursors = [undefined, ...all.map((s) => positionOf(s, scene.keys))];
          for (const cursor of cursors) {
            const at = cursor === undefined ? {} : scene.backwards ? { before: cursor } : { after: cursor };
            const [fromPostgres, fromMemory] = await Promise.all([
              postgres.page({ ...request, ...at }),
              memory.page({ ...request, ...at }),
            ]);
            expect({ ...fromPostgres, standards: fromPostgres.standards.map((s) => s.id) }).toEqual({
              ...fromMemory,
              standards: fromMemory.standards.map((s) => s.id),
            });
          }
        }),
        { numRuns: 40 },
      );
    });
  });
});
