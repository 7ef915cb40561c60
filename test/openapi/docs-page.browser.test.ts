import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/core/app.js';
import { json } from '../../src/core/response.js';
import { docsPage, openApiDocument } from '../../src/openapi/index.js';
import { securityHeaders } from '../../src/security/index.js';
import { integer, strictObject, text } from '../../src/validation/index.js';
import { browserAvailable, launchBrowser } from '../support/browser.js';

const available = browserAvailable();

describe.runIf(available)('the API reference page in a real browser', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    const document = openApiDocument(
      [
        {
          method: 'GET',
          pattern: '/books',
          query: { author: text({ maxLength: 50 }) },
          responses: { 200: { description: 'Books', body: 'collection' } },
        },
        {
          method: 'GET',
          pattern: '/books/{id}',
          responses: { 200: { description: 'A book', body: 'resource' } },
        },
        {
          method: 'POST',
          pattern: '/orders',
          auth: 'principal',
          body: {
            codec: strictObject({ bookId: integer({ min: 1 }), quantity: integer({ min: 1, max: 100 }) }),
            type: 'orders',
          },
          responses: {
            201: {
              description: 'The order',
              body: 'resource',
              headers: { Location: { description: 'Its URL' } },
            },
          },
        },
      ],
      { title: 'Page test', version: '1.0.0' },
    );
    const docs = docsPage({ specUrl: '/openapi.json' });
    const app = createApp({ use: [securityHeaders()], naming: { allowSegments: ['openapi.json'] } });
    app.route({
      method: 'GET',
      path: '/openapi.json',
      handler: () => json(200, document, { 'content-type': 'application/json' }),
    });
    app.route({
      method: 'GET',
      path: '/docs',
      handler: (ctx) => docs.respond(undefined, ctx.request.headers.get('if-none-match'))!,
    });
    app.route({
      method: 'GET',
      path: '/docs/{asset}',
      handler: (ctx) =>
        docs.respond(ctx.params.asset, ctx.request.headers.get('if-none-match')) ?? {
          status: 404,
          headers: {},
          json: { errors: [{ status: '404' }] },
        },
    });
    server = http.createServer(toNodeHandler(app));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);

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
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((s) => s.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining(['/books', '/books/{id}', '/orders']),
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
  }, 60_000);

  it('serves the page with its own policy, and the API keeps the strict one', async () => {
    const pageResponse = await fetch(`${base}/docs`);
    expect(pageResponse.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pageResponse.headers.get('content-type')).toBe('text/html; charset=utf-8');
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
