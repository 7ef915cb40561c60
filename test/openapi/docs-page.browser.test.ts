import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { browserAvailable, launchBrowser } from '../support/browser.js';
import { referenceApp } from '../support/reference-app.js';

const available = browserAvailable();

describe.runIf(available)("the reference app's API reference page in a real browser", () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // The reference app: its /openapi.json and /docs, as a user opens them.
    const { app } = referenceApp();
    server = http.createServer(toNodeHandler(app));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await new Promise((done) => server.close(done));
  });

  it('lists every operation, with no console error and nothing loaded from another origin', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    await page.goto(`${base}/docs`, { timeout: 120_000 });
    // A bound on a page that never renders: Chromium on a loaded machine took over 20 s to show it.
    await page.locator('.opblock').first().waitFor({ timeout: 120_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((s) => s.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining([
        '/books',
        '/books/{id}',
        '/orders',
        '/orders/{id}',
        '/users/{id}',
        '/api/v1/standards',
      ]),
    );
    expect(problems).toEqual([]);
    expect([...origins].filter((o) => o !== base && !o.startsWith('data:'))).toEqual([]);
    const target =
      process.env.UPDATE_SCREENSHOTS === '1'
        ? resolve(import.meta.dirname, '..', '..', 'docs', 'images', 'api-reference.png')
        : join(tmpdir(), `api-reference-${process.pid}.png`);
    mkdirSync(resolve(target, '..'), { recursive: true });
    await page.screenshot({ path: target, fullPage: false });
    await page.close();
  }, 180_000);

  it('serves the page with its own policy, and the API keeps the strict one', async () => {
    const pageResponse = await fetch(`${base}/docs`);
    expect(pageResponse.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pageResponse.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(pageResponse.headers.get('x-frame-options')).toBe('DENY');
    const api = await fetch(`${base}/openapi.json`);
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const again = await fetch(`${base}/docs/swagger-ui.css`, {
      headers: { 'if-none-match': pageResponse.headers.get('etag')! },
    });
    expect(again.status).toBe(200);
    const cached = await fetch(`${base}/docs/swagger-ui.css`, {
      headers: { 'if-none-match': again.headers.get('etag')! },
    });
    expect(cached.status).toBe(304);
  });
});
