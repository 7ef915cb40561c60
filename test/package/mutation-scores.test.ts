import { describe, expect, it } from 'vitest';
import { fileScores } from '../../build/mutation-scores.js';

const mutants = (statuses: Record<string, number>) =>
  Object.entries(statuses).flatMap(([status, count]) => Array.from({ length: count }, () => ({ status })));

describe('the per-file mutation score', () => {
  it('counts killed and timed-out mutants as detected, survivors and uncovered ones as not, ignores the rest', () => {
    const scores = fileScores({
      files: {
        'a.ts': { mutants: mutants({ Killed: 8, Timeout: 1, Survived: 1 }) },
        'b.ts': { mutants: mutants({ Killed: 3, NoCoverage: 1, Ignored: 5, CompileError: 2 }) },
        'c.ts': { mutants: [] },
      },
    });
    expect(scores).toEqual([
      { file: 'a.ts', score: 90 },
      { file: 'b.ts', score: 75 },
      { file: 'c.ts', score: 100 },
    ]);
  });
});
