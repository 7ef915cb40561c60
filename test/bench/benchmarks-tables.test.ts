import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRows, type Results, runtimeRows } from '../../bench/doc-tables.js';

// docs/benchmarks.md states the results of `npm run bench` on Node, Bun and Deno; the figures are
// those of bench/results.json, so a figure edited by hand, or a run not carried into the page,
// fails here.

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as Results;

/** The data rows of the first table after `heading`. */
function tableAfter(heading: string): string[] {
  const at = page.indexOf(heading);
  expect(at, heading).toBeGreaterThan(-1);
  const lines = page.slice(at).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start + 2, end);
}

describe('docs/benchmarks.md, the results tables', () => {
  it('states the figures of bench/results.json on Node: the app against Fastify, Hono and Express', () => {
    expect(tableAfter('## Results')).toEqual(nodeRows(results));
  });

  it('states the figures of bench/results.json on Bun and Deno: the app against Hono on each', () => {
    const rows = runtimeRows(results);
    expect(rows.length).toBeGreaterThan(0);
    expect(tableAfter('### On Bun and Deno')).toEqual(rows);
  });
});
