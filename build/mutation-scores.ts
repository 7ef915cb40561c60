/**
 * `npm run test:mutation` after Stryker: each mutated file must kill at least `MIN_SCORE` percent of
 * its mutants (Stryker's own threshold is the total of all files). Reads the mutation-testing-report
 * JSON Stryker writes (reports/mutation/mutation.json) and prints one line per file.
 */
import { readFileSync } from 'node:fs';

/** The lowest score a file may have, in percent. */
export const MIN_SCORE = 90;

interface Report {
  readonly files: Record<string, { readonly mutants: readonly { readonly status: string }[] }>;
}

/** Killed and timed-out mutants count as detected; ignored ones and compile errors do not count at all. */
const DETECTED = new Set(['Killed', 'Timeout']);
const UNCOUNTED = new Set(['Ignored', 'CompileError', 'RuntimeError']);

/** Each file's score (detected / counted mutants, in percent), in the report's order. */
export function fileScores(report: Report): { readonly file: string; readonly score: number }[] {
  return Object.entries(report.files).map(([file, { mutants }]) => {
    const counted = mutants.filter((m) => !UNCOUNTED.has(m.status));
    const detected = counted.filter((m) => DETECTED.has(m.status)).length;
    return { file, score: counted.length === 0 ? 100 : (detected / counted.length) * 100 };
  });
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const scores = fileScores(JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8')) as Report);
  for (const { file, score } of scores) console.log(`${score.toFixed(2).padStart(6)}%  ${file}`);
  const low = scores.filter((s) => s.score < MIN_SCORE);
  if (low.length > 0) {
    console.error(`below ${MIN_SCORE}%: ${low.map((s) => s.file).join(', ')}`);
    process.exitCode = 1;
  }
}
