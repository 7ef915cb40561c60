/**
 * Claims the docs make about the linter: the `error-responses` rule asks for a 4xx "with its error
 * document" (docs/lint.md), and the declared route of docs/core.md ("Declared routes") lints clean.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/core/index.js';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { lintOpenApi } from '../../src/lint/index.js';
import type { OpenApiDocument } from '../../src/openapi/index.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { root } from '../support/built-package.js';

const operation = (responses: Record<string, unknown>): OpenApiDocument =>
  ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/books/{id}': { delete: { responses: { 204: { description: 'gone' }, ...responses } } } },
  }) as unknown as OpenApiDocument;

const ruleIds = (document: OpenApiDocument) => lintOpenApi(document).map((finding) => finding.rule);

describe('error-responses', () => {
  it('does not count a 4xx without content: it documents no error document', () => {
    expect(ruleIds(operation({ 404: { description: 'missing' } }))).toContain('error-responses');
  });

  it('passes a 4xx with its error document', () => {
    const documented = { description: 'missing', content: { 'application/vnd.api+json': { schema: {} } } };
    expect(ruleIds(operation({ 404: documented }))).not.toContain('error-responses');
  });
});

describe('the declared route of docs/core.md', () => {
  const dir = mkdtempSync(join(root, 'test', 'lint', '.core-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lints clean once registered and described', async () => {
    const page = readFileSync(join(root, 'docs', 'core.md'), 'utf8');
    const block = /```ts\n(import \{ created, defineRoute \}[\s\S]*?)```/.exec(page)![1]!;
    // What the snippet takes from the app around it.
    const stubs = `
type OrderStore = { create(order: object): Promise<{ id: number }> };
const toResource = (order: { id: number }) => ({ type: 'orders', id: String(order.id) });
`;
    writeFileSync(join(dir, 'routes.ts'), `${block}\n${stubs}`);
    const { ordersRoutes } = await import(join(dir, 'routes.ts'));
    const app = createApp();
    const orders = { create: async () => ({ id: 1 }) };
    for (const route of ordersRoutes({ orders, idempotencyStore: memoryIdempotencyStore() }))
      app.route(route);
    const document = openApiDocument(app.routes(), { title: 'Orders', version: '1.0.0' });
    expect(lintOpenApi(document)).toEqual([]);
  });
});
