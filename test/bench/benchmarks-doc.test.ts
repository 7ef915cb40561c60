import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYED_PEERS } from '../../bench/keyed-peers.js';

// docs/benchmarks.md states the keyed-write comparison with the idempotency libraries; the figures
// are those of bench/results.json (`npm run bench` writes it), so a figure edited by hand, or a run
// not carried into the page, fails here.

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as {
  cases: Record<string, { servers: Record<string, ServerFigures> }>;
};

interface ServerFigures {
  readonly rps: number;
  readonly p99: number;
  readonly cpuPerRequest: number;
  readonly loaderCpuPerRequest: number;
  readonly redisCpuPerRequest?: number;
}

interface Row {
  readonly store: string;
  readonly server: string;
  readonly cells: readonly string[];
}

/** The rows of the table under the section's heading, split into cells. */
function keyedTable(): Row[] {
  const section = page.slice(page.indexOf('### Keyed writes against the idempotency libraries'));
  const table = section.slice(section.indexOf('\n| store |'));
  const lines = table.trim().split('\n');
  const rows = lines.slice(
    2,
    lines.findIndex((line, i) => i > 1 && !line.startsWith('|')),
  );
  return rows.map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    return { store: cells[0]!, server: cells[1]!.replaceAll('`', ''), cells };
  });
}

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
const STORES: Record<string, string> = { memory: 'memory', Redis: 'redis', 'Redis Cluster': 'cluster' };
/** Which store each of the app's servers runs on. */
const APP_STORES: Record<string, string> = {
  app: 'memory',
  'app+redis': 'redis',
  'app+cluster': 'cluster',
  'app+cluster-nowait': 'cluster',
};

describe('docs/benchmarks.md, keyed writes against the idempotency libraries', () => {
  const measured = results.cases['order-post-idempotent+libraries']!.servers;
  const rows = keyedTable();

  it('has a row for every server of the comparison in bench/results.json', () => {
    expect(rows.map((r) => r.server).sort()).toEqual(Object.keys(measured).sort());
  });

  it.each(rows.map((r) => [r.server, r] as const))('states the measured figures of %s', (server, row) => {
    const figures = measured[server]!;
    const store = APP_STORES[server] ?? KEYED_PEERS[server as keyof typeof KEYED_PEERS].store;
    expect(STORES[row.store]).toBe(store);
    const [, , rps, p99, cpu, ratio] = row.cells;
    expect(rps).toBe(thousands(figures.rps));
    expect(p99).toBe(String(figures.p99));
    const redis = figures.redisCpuPerRequest === undefined ? '-' : thousands(figures.redisCpuPerRequest);
    expect(cpu).toBe(
      `${thousands(figures.cpuPerRequest)} / ${thousands(figures.loaderCpuPerRequest)} / ${redis}`,
    );
    // The app's rows: its requests/s over the best library's on the same store.
    if (server in APP_STORES && server !== 'app+cluster-nowait') {
      const peers = Object.entries(KEYED_PEERS)
        .filter(([, peer]) => peer.store === store)
        .map(([name]) => measured[name]!.rps);
      expect(ratio).toBe(`**${(figures.rps / Math.max(...peers)).toFixed(2)}x**`);
    } else expect(ratio).toBe('');
  });
});

describe('docs/deployment.md, what WAIT costs on the cluster', () => {
  it('states the figures of app+cluster and app+cluster-nowait in bench/results.json', () => {
    const text = readFileSync(join(root, 'docs/deployment.md'), 'utf8').replace(/\s+/g, ' ');
    const { 'app+cluster': wait, 'app+cluster-nowait': noWait } =
      results.cases['order-post-idempotent+libraries']!.servers;
    const figures = (s: ServerFigures) =>
      `${thousands(s.rps)} req/s, p99 ${s.p99} ms, and ${thousands(s.redisCpuPerRequest!)} us`;
    expect(text).toContain(`with \`WAIT\` ${figures(wait!)} of the cluster's CPU per write`);
    expect(text).toContain(
      `without it (\`REDIS_WAIT_REPLICAS=0\`) ${figures(noWait!).replace(', and', ',')}`,
    );
  });
});
