/**
 * The rows of docs/benchmarks.md's two results tables, from `bench/results.json`: on Node the app
 * against Fastify, Hono and Express; on Bun and Deno the app against Hono on the same runtime.
 * `npm run bench` prints them after a run, and `test/bench/benchmarks-tables.test.ts` checks that
 * the page states them, so no figure is edited by hand.
 */
import { CASES } from './cases.js';

export interface ServerFigures {
  readonly rps: number;
  readonly p99: number;
  readonly cpuPerRequest?: number;
}

export interface Results {
  readonly cases: Readonly<Record<string, { readonly servers: Readonly<Record<string, ServerFigures>> }>>;
}

/** How each case is named in the tables. */
export const CASE_LABELS: Readonly<Record<string, string>> = {
  'books-by-author': '`GET /books?author=`',
  book: '`GET /books/7`',
  'book-304': '`GET /books/7` + `If-None-Match` (304)',
  'order-post': '`POST /orders`, bearer',
  'order-post-idempotent': '`POST /orders`, bearer + `Idempotency-Key`',
  order: '`GET /orders/{id}`, bearer (owner)',
  'user-order': '`GET /users/{id}/orders/{order_id}`',
};

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

/** `**1.63** (cpu 1.50)`: requests/s of the app over the peer's, and the peer's CPU per request over the app's. */
function ratioCell(app: ServerFigures | undefined, peer: ServerFigures | undefined): string {
  if (app === undefined || peer === undefined) return '-';
  const cpu =
    app.cpuPerRequest === undefined || peer.cpuPerRequest === undefined
      ? ''
      : ` (cpu ${(peer.cpuPerRequest / app.cpuPerRequest).toFixed(2)})`;
  return `**${(app.rps / peer.rps).toFixed(2)}**${cpu}`;
}

const p99Cell = (app: ServerFigures | undefined, peer: ServerFigures | undefined) =>
  app === undefined || peer === undefined ? '-' : `${app.p99} / ${peer.p99}`;

const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;

/** The rows of the table on Node, in the order of the cases. */
export function nodeRows(results: Results): string[] {
  return CASES.flatMap(({ name }) => {
    const servers = results.cases[name]?.servers;
    const app = servers?.app;
    if (servers === undefined || app === undefined) return [];
    const cpu = ['app', 'fastify', 'hono', 'express'].map((s) => {
      const figure = servers[s]?.cpuPerRequest;
      return figure === undefined ? '-' : thousands(figure);
    });
    return [
      row([
        CASE_LABELS[name]!,
        thousands(app.rps),
        ratioCell(app, servers.fastify),
        ratioCell(app, servers.hono),
        ratioCell(app, servers.express),
        p99Cell(app, servers.fastify),
        cpu.join(' / '),
      ]),
    ];
  });
}

/** The rows of the table on Bun and Deno: the app against Hono on the same runtime. */
export function runtimeRows(results: Results): string[] {
  return CASES.flatMap(({ name }) => {
    const servers = results.cases[name]?.servers;
    if (servers === undefined || (servers['app@bun'] === undefined && servers['app@deno'] === undefined))
      return [];
    const on = (runtime: string) => {
      const app = servers[`app@${runtime}`];
      const hono = servers[`hono@${runtime}`];
      return [app === undefined ? '-' : thousands(app.rps), ratioCell(app, hono), p99Cell(app, hono)];
    };
    return [row([CASE_LABELS[name]!, ...on('bun'), ...on('deno')])];
  });
}
