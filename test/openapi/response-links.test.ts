import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { linkTo } from '../../src/core/response-links.js';
import { defineRoute } from '../../src/core/route.js';
import { routeTarget } from '../../src/core/route-target.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { type OpenApiDocument, openApiDocument, pathItemOperations } from '../../src/openapi/index.js';
import { bearer, referenceApp } from '../support/reference-app.js';

async function referenceDocument(): Promise<OpenApiDocument> {
  const response = await toFetchHandler(referenceApp().app)(new Request('http://app.test/openapi.json'));
  return (await response.json()) as OpenApiDocument;
}

const operationIdOf = (document: OpenApiDocument, method: string, path: string) =>
  (document.paths![path] as Record<string, { operationId: string }>)[method]!.operationId;

describe('declared links in the API description (OpenAPI 3.1 section 4.8.20)', () => {
  it("describes the reference app's links by operationId, with runtime expressions and constants", async () => {
    const document = await referenceDocument();
    const created = document.paths!['/orders']!.post!.responses['201']!;
    expect(created.links).toEqual({
      payment: {
        operationId: operationIdOf(document, 'post', '/orders/{id}/payments'),
        parameters: { 'path.id': '$response.body#/data/id', 'query.discount': 'WELCOME10' },
        description: 'Pay for the order, with the welcome discount',
      },
    });
    expect(document.paths!['/books']!.get!.responses['200']!.links).toEqual({
      order: {
        operationId: operationIdOf(document, 'post', '/orders'),
        description: 'Order one of these books',
      },
    });
  });

  it('resolves each link of the served document: its operation answers what the link names', async () => {
    const document = await referenceDocument();
    const { app } = referenceApp();
    const handle = toFetchHandler(app);
    const token = await bearer('1');
    const placed = await handle(
      new Request('http://app.test/orders', {
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: JSON.stringify({ bookId: 1, quantity: 1 }),
      }),
    );
    const body = (await placed.json()) as { data: { id: string } };
    const operations = Object.entries(document.paths!).flatMap(([path, item]) =>
      pathItemOperations(item).map(([method, operation]) => ({ path, method, operation })),
    );
    const payment = document.paths!['/orders']!.post!.responses['201']!.links!.payment!;
    const target = operations.find((o) => o.operation.operationId === payment.operationId)!;
    expect(`${target.method.toUpperCase()} ${target.path}`).toBe('POST /orders/{id}/payments');
    const id = payment.parameters!['path.id'] === '$response.body#/data/id' ? body.data.id : '';
    const url = `${target.path.replace('{id}', id)}?discount=${payment.parameters!['query.discount']}`;
    const paid = await handle(
      new Request(`http://app.test${url}`, { method: 'POST', headers: { authorization: token } }),
    );
    expect(paid.status).toBe(201);
    expect(lintOpenApi(document).filter((f) => f.rule === 'link-targets')).toEqual([]);
  });

  it('lints a link that leads to no operation (a planted document)', async () => {
    const document = structuredClone(await referenceDocument()) as OpenApiDocument;
    const responses = document.paths!['/orders']!.post!.responses as Record<string, { links?: object }>;
    responses['201']!.links = {
      payment: { operationId: 'postOrdersByIdPayment' },
      receipt: { operationRef: '#/paths/~1orders~1{id}~1receipts/post' },
    };
    expect(lintOpenApi(document).filter((f) => f.rule === 'link-targets')).toEqual([
      expect.objectContaining({
        path: '/orders',
        method: 'POST',
        message: expect.stringContaining('"payment"'),
      }),
      expect.objectContaining({
        path: '/orders',
        method: 'POST',
        message: expect.stringContaining('"receipt"'),
      }),
    ]);
  });

  it('refuses to describe a link whose target is not among the routes described, naming both', () => {
    const ORDER = routeTarget('GET', '/orders/{id}');
    const app = createApp()
      .route(
        defineRoute({
          method: 'POST',
          path: '/orders',
          responses: {
            201: { description: 'x', links: { self: linkTo(ORDER, { params: { id: 'data.id' } }) } },
          },
          handler: () => json(201, { data: null }),
        }),
      )
      .route(defineRoute({ ...ORDER, handler: () => json(200, { data: null }) }));
    const [create] = app.routes();
    expect(() => openApiDocument([create!], { title: 't', version: '1' })).toThrow(
      new TypeError(
        'openApiDocument: route POST /orders: responses[201].links.self leads to GET /orders/{id}, which is not among the routes',
      ),
    );
  });
});
