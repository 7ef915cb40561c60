/**
 * The soak report's plot: RSS, heap after GC and p99 latency over time, from the numbers in
 * `bench/soak/report.json`. `npm run soak` draws it; `npx tsx bench/soak/plot.ts` redraws it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackedLineChart } from './svg-plot.js';

/** One sampling window of the soak report. */
export interface SoakWindow {
  readonly seconds: number;
  readonly rssMB: number;
  readonly heapMB: number;
  readonly p99Ms: number;
}

export function soakPlot(windows: readonly SoakWindow[]): string {
  return stackedLineChart('Soak of the reference app: RSS, heap after GC and p99 latency over time', [
    { title: 'App RSS', unit: 'MB', points: windows.map((w) => [w.seconds, w.rssMB]) },
    { title: 'App heap after GC', unit: 'MB', points: windows.map((w) => [w.seconds, w.heapMB]) },
    { title: 'p99 latency per window', unit: 'ms', points: windows.map((w) => [w.seconds, w.p99Ms]) },
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = join('bench', 'soak');
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { windows: SoakWindow[] };
  writeFileSync(join(dir, 'report.svg'), soakPlot(report.windows));
}
