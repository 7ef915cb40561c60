import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import { browserAvailable, launchBrowser } from '../support/browser.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * A single-page app on another origin, in Chromium: a page served from one loopback port calls the
 * API on another, as a browser client does, and the browser enforces CORS. On each adapter (the
 * reference app served by node, fetch, Express, Fastify, Koa and Hono; the four framework examples,
 * whose own routers answer the preflight) it makes a conditional GET (304), a keyed POST, a PATCH
 * with If-Match (where the API has one), and reads ETag, Location and RateLimit; a page on an origin
 * the API does not list is refused by the browser.
 */
const available = browserAvailable();

/** What the page's script saw, for the test to assert on. */
interface Seen {
  readonly etag: string | null;
  readonly notModified: number;
  readonly created: number;
  readonly location: string | null;
  readonly replayed: string | null;
  readonly rateLimit: string | null;
  readonly rateLimitPolicy: string | null;
  readonly requestId: string | null;
  readonly patched?: number;
  readonly stale?: number;
  readonly staleCode?: string;
}

describe.runIf(available)('CORS in a real browser', () => {
  let page: http.Server;
  let pagePort: number;
  let browser: Browser;
  const apis: [string, Served][] = [];

  beforeAll(async () => {
    // The page's server: any path is a blank HTML page, the origin the script runs in.
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>SPA</title>');
    });
    await new Promise<void>((done) => page.listen(0, '127.0.0.1', done));
    pagePort = (page.address() as AddressInfo).port;
    // Only the page's own origin is allowed; `localhost` on the same port is another origin.
    const origin = `http://127.0.0.1:${pagePort}`;
    for (const adapter of ADAPTERS)
      apis.push([
        `reference app on ${adapter}`,
        await serve(adapter, referenceApp({ CORS_ORIGINS: origin }).app, 0),
      ]);
    const config = configFromEnv({ PORT: '0', CORS_ORIGINS: origin, RATE_LIMIT_MAX: '100000' });
    for (const name of EXAMPLES) apis.push([`${name} example`, await serveExample(name, config, 0)]);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const [, served] of apis) await served.close();
    if (page) await new Promise((done) => page.close(done));
  });

  async function openPage(host: string): Promise<Page> {
    const tab = await browser.newPage();
    await tab.goto(`http://${host}:${pagePort}/`);
    return tab;
  }

  const targets = ADAPTERS.map((a) => `reference app on ${a}`).concat(EXAMPLES.map((n) => `${n} example`));

  it.each(targets)('%s: a page on an allowed origin reads what the conventions say', async (name) => {
    const api = `http://127.0.0.1:${apis.find(([n]) => n === name)![1].port}`;
    const token = await bearer('spa-user');
    const withPatch = name.startsWith('reference app');
    const tab = await openPage('127.0.0.1');
    try {
      const seen = await tab.evaluate(
        async ({ api, token, withPatch }): Promise<Seen> => {
          // `no-store`: the script itself revalidates, and sees the 304 (the HTTP cache would hide it).
          const book = await fetch(`${api}/books/1`, { cache: 'no-store' });
          const etag = book.headers.get('etag');
          const again = await fetch(`${api}/books/1`, {
            cache: 'no-store',
            headers: { 'If-None-Match': etag ?? '' },
          });
          const key = crypto.randomUUID();
          const post = () =>
            fetch(`${api}/orders`, {
              method: 'POST',
              headers: { Authorization: token, 'Content-Type': 'application/json', 'Idempotency-Key': key },
              body: JSON.stringify({ bookId: 1, quantity: 2 }),
            });
          const made = await post();
          const replay = await post();
          const seen: Seen = {
            etag,
            notModified: again.status,
            created: made.status,
            location: made.headers.get('location'),
            replayed: replay.headers.get('idempotent-replayed'),
            rateLimit: made.headers.get('ratelimit'),
            rateLimitPolicy: made.headers.get('ratelimit-policy'),
            requestId: made.headers.get('x-request-id'),
          };
          if (!withPatch) return seen;
          const order = `${api}${made.headers.get('location')}`;
          const current = await fetch(order, { cache: 'no-store', headers: { Authorization: token } });
          const tag = current.headers.get('etag') ?? '';
          const change = (ifMatch: string) =>
            fetch(order, {
              method: 'PATCH',
              headers: { Authorization: token, 'Content-Type': 'application/json', 'If-Match': ifMatch },
              body: JSON.stringify({ quantity: 3 }),
            });
          const patched = await change(tag);
          const stale = await change(tag);
          const problem = (await stale.json()) as { errors: { code: string }[] };
          return {
            ...seen,
            patched: patched.status,
            stale: stale.status,
            staleCode: problem.errors[0]!.code,
          };
        },
        { api, token, withPatch },
      );
      expect(seen.etag).toMatch(/^"/);
      expect(seen.notModified).toBe(304);
      expect(seen.created).toBe(201);
      expect(seen.location).toMatch(/^\/orders\/\d+$/);
      expect(seen.replayed).toBe('true');
      expect(seen.rateLimit).toMatch(/^"default";r=\d+;t=\d+$/);
      expect(seen.rateLimitPolicy).toMatch(/^"default";q=\d+;w=\d+$/);
      expect(seen.requestId).not.toBeNull();
      if (withPatch)
        expect([seen.patched, seen.stale, seen.staleCode]).toEqual([200, 412, 'precondition-failed']);
    } finally {
      await tab.close();
    }
  });

  it.each(targets)('%s: a page on an origin it does not list is refused by the browser', async (name) => {
    const api = `http://127.0.0.1:${apis.find(([n]) => n === name)![1].port}`;
    const tab = await openPage('localhost');
    try {
      const outcome = await tab.evaluate(async (api) => {
        const attempt = async (init?: RequestInit) =>
          fetch(`${api}/books/1`, init).then(
            (res) => `read ${res.status}`,
            (error: Error) => error.name,
          );
        return [await attempt(), await attempt({ headers: { 'If-None-Match': '"x"' } })];
      }, api);
      // A simple GET is sent but its answer kept from the script; a preflighted one is never sent.
      expect(outcome).toEqual(['TypeError', 'TypeError']);
    } finally {
      await tab.close();
    }
  });
});
