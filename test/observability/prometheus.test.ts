/**
 * docs/observability.md against the real things: the reference app as a process with its Prometheus
 * endpoint (`METRICS_PORT`), a real Prometheus scraping it every second, and each PromQL query of
 * the page run through Prometheus' HTTP API after requests that each question is about.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppProcess, startReferenceApp } from '../support/app-process.js';
import { root } from '../support/built-package.js';
import { compileBlocks, taggedBlocks, writeBlocks } from '../support/doc-blocks.js';
import { type Prometheus, prometheusAvailable, type Sample, startPrometheus } from '../support/prometheus.js';
import { freePort, until } from '../support/redis-servers.js';
import { clientToken, ORDER } from '../support/telemetry.js';

const PAGE = readFileSync(join(root, 'docs/observability.md'), 'utf8');
const QUERIES = [...PAGE.matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

/** The one query of the page that reads `metric`. */
const queryOf = (metric: string) => {
  const found = QUERIES.filter((q) => q.includes(metric));
  expect(found, metric).toHaveLength(1);
  return found[0]!;
};

const token = (sub: string) => clientToken(sub, 'mobile');
const RATE_LIMIT_MAX = 6;

describe('docs/observability.md', () => {
  it('has a PromQL query for each question it opens with, and its set-up compiles', () => {
    expect(QUERIES).toHaveLength(7);
    const dir = writeBlocks(
      join(root, 'test/observability'),
      '.setup-',
      taggedBlocks('observability.md', 'observability'),
    );
    try {
      expect(compileBlocks(dir)).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(prometheusAvailable())(
  'the queries of docs/observability.md against a real Prometheus',
  () => {
    let app: AppProcess;
    let prometheus: Prometheus;
    let base: string;

    beforeAll(async () => {
      const metricsPort = await freePort();
      app = await startReferenceApp({
        METRICS_PORT: String(metricsPort),
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        RATE_LIMIT_WINDOW: '3600',
        LOG_LEVEL: 'warn',
      });
      base = app.urls[0]!.replace('localhost', '127.0.0.1');
      prometheus = await startPrometheus(`127.0.0.1:${metricsPort}`);
    }, 120_000);
    afterAll(async () => {
      await prometheus?.stop();
      await app?.stop();
    });

    /** One round of what the questions are about, by users of its own (each within the rate limit). */
    async function drive(round: number) {
      const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
        fetch(`${base}${path}`, { method, headers, body }).then(async (r) => {
          await r.arrayBuffer();
          return r;
        });
      const owner = await token(`owner-${round}`);
      const keyed = {
        authorization: owner,
        'content-type': 'application/vnd.api+json',
        'idempotency-key': `k-${round}`,
      };
      const created = await send('POST', '/orders', keyed, ORDER);
      expect(created.status).toBe(201);
      expect((await send('POST', '/orders', keyed, ORDER)).headers.get('idempotent-replayed')).toBe('true');
      expect((await send('POST', '/orders', keyed, ORDER.replace('2', '3'))).status).toBe(422);
      const path = new URL(created.headers.get('location')!, base).pathname;
      const patch = { authorization: owner, 'content-type': 'application/json' };
      expect((await send('PATCH', path, patch, '{"quantity":5}')).status).toBe(428);
      expect((await send('PATCH', path, { ...patch, 'if-match': '"stale"' }, '{"quantity":5}')).status).toBe(
        412,
      );
      expect(
        (await send('GET', '/v1/users/1', { authorization: await token('1') })).headers.get('deprecation'),
      ).not.toBeNull();
      const spammer = await token(`spammer-${round}`);
      const statuses: number[] = [];
      for (let i = 0; i < RATE_LIMIT_MAX + 2; i++)
        statuses.push((await send('GET', '/books/1', { authorization: spammer })).status);
      expect(statuses).toContain(429);
    }

    /** Polls `promql` until `holds` accepts its answer (Prometheus scrapes every second). */
    async function answered(promql: string, holds: (samples: Sample[]) => boolean): Promise<Sample[]> {
      let last: Sample[] = [];
      await until(`${promql} (last answer: ${JSON.stringify(last)})`, 60_000, async () => {
        last = await prometheus.query(promql);
        return holds(last);
      });
      return last;
    }

    it('answers each question from the series the app exposes', async () => {
      await drive(1);
      // A counter's first sample is its start: `increase` needs a second, later one.
      for (const series of [
        'rest_conventions_idempotency_replays_total',
        'rest_conventions_idempotency_conflicts_total',
        'rest_conventions_precondition_failures_total',
        'rest_conventions_ratelimit_refusals_total',
        'rest_conventions_deprecated_calls_total',
      ])
        await answered(series, (s) => s.length > 0);
      await drive(2);

      const positive = (s: Sample[], labels: Record<string, string>) =>
        s.some((x) => x.value > 0 && Object.entries(labels).every(([k, v]) => x.metric[k] === v));
      await answered(queryOf('idempotency_replays'), (s) => positive(s, { http_route: '/orders' }));
      await answered(queryOf('idempotency_conflicts'), (s) =>
        positive(s, { http_route: '/orders', rest_conventions_idempotency_outcome: 'mismatch' }),
      );
      await answered(queryOf('precondition_failures'), (s) =>
        ['failed', 'required'].every((outcome) =>
          positive(s, { http_route: '/orders/{id}', rest_conventions_precondition_outcome: outcome }),
        ),
      );
      await answered(queryOf('ratelimit_refusals'), (s) =>
        positive(s, { rest_conventions_caller: 'mobile', rest_conventions_ratelimit_policy: 'default' }),
      );
      await answered(queryOf('deprecated_calls'), (s) =>
        positive(s, { http_route: '/v1/users/{id}', rest_conventions_caller: 'mobile' }),
      );
      const latency = await answered(queryOf('histogram_quantile'), (s) =>
        ['claim', 'complete'].every((op) =>
          s.some((x) => x.metric.db_operation_name === op && Number.isFinite(x.value)),
        ),
      );
      for (const sample of latency) expect(sample.value).toBeGreaterThan(0);
      // No store failed: the query is valid, and answers nothing.
      expect(await prometheus.query(queryOf('error_type!=""'))).toEqual([]);
    }, 180_000);
  },
);
