import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type LevelFact,
  nextOwnershipStep,
  OWNERSHIP_DENIALS,
  type OwnershipStep,
} from '../../src/ownership/index.js';

describe('nextOwnershipStep', () => {
  describe('when the request has no principal', () => {
    it('denies with 401 before anything else is asked', () => {
      expect(nextOwnershipStep({ depth: 2, authenticated: false, levels: [] })).toEqual({
        kind: 'deny',
        reason: 'unauthenticated',
        status: 401,
      });
    });
  });

  describe('when the principal is known', () => {
    it('asks for the access rule before loading anything', () => {
      expect(nextOwnershipStep({ depth: 2, authenticated: true, levels: [] })).toEqual({
        kind: 'check-access',
      });
    });

    it('denies with 403 when the principal may not access the parent, without loading it', () => {
      expect(
        nextOwnershipStep({ depth: 2, authenticated: true, mayAccessParent: false, levels: [] }),
      ).toEqual({
        kind: 'deny',
        reason: 'forbidden',
        status: 403,
      });
    });

    it('loads the parent first, then each child in order', () => {
      const base = { depth: 3, authenticated: true, mayAccessParent: true } as const;
      expect(nextOwnershipStep({ ...base, levels: [] })).toEqual({ kind: 'load', level: 0 });
      expect(nextOwnershipStep({ ...base, levels: ['present'] })).toEqual({ kind: 'load', level: 1 });
      expect(nextOwnershipStep({ ...base, levels: ['present', 'present'] })).toEqual({
        kind: 'load',
        level: 2,
      });
      expect(nextOwnershipStep({ ...base, levels: ['present', 'present', 'present'] })).toEqual({
        kind: 'allow',
      });
    });

    it('denies an absent parent with 404 at level 0', () => {
      expect(
        nextOwnershipStep({ depth: 2, authenticated: true, mayAccessParent: true, levels: ['absent'] }),
      ).toEqual({ kind: 'deny', reason: 'not-found', status: 404, level: 0 });
    });

    it('gives the same 404 for a child that is absent and one that belongs to another parent', () => {
      const base = { depth: 2, authenticated: true, mayAccessParent: true } as const;
      const absent = nextOwnershipStep({ ...base, levels: ['present', 'absent'] });
      const foreign = nextOwnershipStep({ ...base, levels: ['present', 'foreign'] });
      expect(absent).toEqual({ kind: 'deny', reason: 'not-found', status: 404, level: 1 });
      expect(foreign).toEqual(absent);
    });
  });

  describe('when called with impossible facts', () => {
    it('throws a TypeError for a depth below 1 or more facts than levels', () => {
      expect(() => nextOwnershipStep({ depth: 0, authenticated: true, levels: [] })).toThrow(
        new TypeError('depth must be a positive integer, got 0'),
      );
      expect(() => nextOwnershipStep({ depth: 1.5, authenticated: true, levels: [] })).toThrow(
        new TypeError('depth must be a positive integer, got 1.5'),
      );
      expect(() =>
        nextOwnershipStep({
          depth: 1,
          authenticated: true,
          mayAccessParent: true,
          levels: ['present', 'present'],
        }),
      ).toThrow(new TypeError('2 level facts for a path of depth 1'));
    });
  });

  it('maps every denial to its documented status', () => {
    expect(OWNERSHIP_DENIALS).toEqual({ unauthenticated: 401, forbidden: 403, 'not-found': 404 });
  });
});

/** A request's full truth: what the access rule and each level's load would say if asked. */
const world = fc.integer({ min: 1, max: 4 }).chain((depth) =>
  fc.record({
    depth: fc.constant(depth),
    authenticated: fc.boolean(),
    mayAccessParent: fc.boolean(),
    truth: fc.array(fc.constantFrom<LevelFact>('present', 'absent', 'foreign'), {
      minLength: depth,
      maxLength: depth,
    }),
  }),
);

/** Drive the core to its end, recording what it asked for. */
function run(w: { depth: number; authenticated: boolean; mayAccessParent: boolean; truth: LevelFact[] }) {
  const levels: LevelFact[] = [];
  const loads: number[] = [];
  let accessAsked = 0;
  let mayAccessParent: boolean | undefined;
  for (let guard = 0; guard < 20; guard++) {
    const step: OwnershipStep = nextOwnershipStep({
      depth: w.depth,
      authenticated: w.authenticated,
      levels,
      ...(mayAccessParent === undefined ? {} : { mayAccessParent }),
    });
    if (step.kind === 'check-access') {
      accessAsked++;
      mayAccessParent = w.mayAccessParent;
    } else if (step.kind === 'load') {
      loads.push(step.level);
      levels.push(w.truth[step.level]!);
    } else {
      return { step, loads, accessAsked };
    }
  }
  throw new Error('the core did not terminate');
}

describe('property: the ownership decision over any depth', () => {
  it('allows iff authenticated, the parent is accessible and every level is present and owned', () => {
    fc.assert(
      fc.property(world, (w) => {
        const { step } = run(w);
        const allowed = w.authenticated && w.mayAccessParent && w.truth.every((f) => f === 'present');
        expect(step.kind === 'allow').toBe(allowed);
      }),
    );
  });

  it('denies with exactly 401, then 403, then 404 at the first failing level, in that order', () => {
    fc.assert(
      fc.property(world, (w) => {
        const { step } = run(w);
        const firstBad = w.truth.findIndex((f) => f !== 'present');
        if (!w.authenticated) expect(step).toMatchObject({ kind: 'deny', status: 401 });
        else if (!w.mayAccessParent) expect(step).toMatchObject({ kind: 'deny', status: 403 });
        else if (firstBad !== -1)
          expect(step).toEqual({ kind: 'deny', reason: 'not-found', status: 404, level: firstBad });
        else expect(step).toEqual({ kind: 'allow' });
      }),
    );
  });

  it('asks for each level at most once, outermost first, and nothing after a denial', () => {
    fc.assert(
      fc.property(world, (w) => {
        const { loads, accessAsked } = run(w);
        const firstBad = w.truth.findIndex((f) => f !== 'present');
        const reached = !w.authenticated || !w.mayAccessParent ? 0 : firstBad === -1 ? w.depth : firstBad + 1;
        expect(loads).toEqual([...Array(reached).keys()]);
        expect(accessAsked).toBe(w.authenticated ? 1 : 0);
      }),
    );
  });

  it('never distinguishes a foreign child from an absent one', () => {
    fc.assert(
      fc.property(world, fc.nat(), (w, pick) => {
        const index = pick % w.depth;
        const asAbsent = w.truth.map((f, i) => (i === index && f === 'foreign' ? 'absent' : f));
        expect(run({ ...w, truth: asAbsent }).step).toEqual(run(w).step);
      }),
    );
  });
});
