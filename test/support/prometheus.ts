import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, until } from './redis-servers.js';

/** Debian's Prometheus (`apt-get install prometheus`), or `PROMETHEUS_PATH`. `.ci/run` installs it. */
const PROMETHEUS_PATH = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

/**
 * Whether the Prometheus tests can run: under `CI=true` a missing binary is a failure (it throws);
 * elsewhere the tests skip and one line says why.
 */
export function prometheusAvailable(): boolean {
  if (existsSync(PROMETHEUS_PATH)) return true;
  if (process.env.CI === 'true')
    throw new Error(`Prometheus is not installed at ${PROMETHEUS_PATH}, and CI=true requires it.`);
  console.warn(`skipping Prometheus tests: no Prometheus at ${PROMETHEUS_PATH} (apt-get install prometheus)`);
  return false;
}

/** One series of an instant query's answer. */
export interface Sample {
  readonly metric: Record<string, string>;
  readonly value: number;
}

/** A Prometheus server of the test's own, scraping `target` every second. */
export interface Prometheus {
  /** An instant query through `/api/v1/query`; throws with Prometheus' error for a bad query. */
  query(promql: string): Promise<Sample[]>;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus on a loopback port with a configuration and a data folder of its own (removed by
 * `stop`), scraping `target` (`host:port`, path `/metrics`) every second; resolves once its HTTP API
 * answers as ready.
 */
export async function startPrometheus(target: string): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'rc-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: reference-app',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    PROMETHEUS_PATH,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, 'exit');
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(`Prometheus on ${base}${output ? `: ${output}` : ''}`, 60_000, async () => {
      if (child.exitCode !== null) throw new Error(output);
      return (await fetch(`${base}/-/ready`)).ok;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    async query(promql) {
      const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const answer = (await response.json()) as {
        status: string;
        error?: string;
        data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (answer.status !== 'success') throw new Error(`PromQL ${promql}: ${answer.error}`);
      return answer.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    stop,
  };
}
