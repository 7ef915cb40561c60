import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { created, json } from '../../src/core/response.js';
import { linkTo } from '../../src/core/response-links.js';
import { defineRoute } from '../../src/core/route.js';
import { routeTarget, targetUrl } from '../../src/core/route-target.js';
import { dataDocument } from '../../src/envelope/build.js';
import { text } from '../../src/validation/index.js';
import { requestView } from '../support/request.js';
import { send } from './send.js';

const ORDERS = routeTarget('POST', '/orders');
const ORDER = routeTarget('GET', '/orders/{id}');
const PAYMENTS = routeTarget('POST', '/orders/{id}/payments');

const order = (id: string) => ({ type: 'orders', id, attributes: { bookId: 3, code: 'a b' } });

function ordersApp(
  payment = linkTo(PAYMENTS, { params: { id: 'data.id' }, query: { discount: { value: 'WELCOME10' } } }),
) {
  return createApp()
    .route(
      defineRoute({
        ...ORDERS,
        responses: {
          201: {
            description: 'The order',
            body: 'resource',
            links: { self: linkTo(ORDER, { params: { id: 'data.id' } }), payment },
          },
        },
        handler: () => created('/orders/a%2Fb', dataDocument(order('a/b'))),
      }),
    )
    .route(defineRoute({ ...ORDER, handler: (ctx) => json(200, dataDocument(order(ctx.params.id))) }))
    .route(
      defineRoute({
        ...PAYMENTS,
        query: { discount: text({ maxLength: 20 }), note: text({ maxLength: 20 }) },
        handler: () => json(201, dataDocument(null)),
      }),
    );
}

describe('declared links', () => {
  it('writes each link of the answered status into the top-level links, built from the resource', async () => {
    const response = await send(ordersApp(), 'POST', '/orders');
    expect(response.status).toBe(201);
    expect(response.body.links).toEqual({
      self: '/orders/a%2Fb',
      payment: '/orders/a%2Fb/payments?discount=WELCOME10',
    });
  });

  it('applies the mount path to declared links as to every link', async () => {
    const response = await ordersApp().handle({ ...requestView('POST', '/orders'), mountPath: '/api/v1' });
    expect((response.json as { links: { payment: string } }).links.payment).toBe(
      '/api/v1/orders/a%2Fb/payments?discount=WELCOME10',
    );
  });

  it('takes query values from attributes too', async () => {
    const app = ordersApp(
      linkTo(PAYMENTS, { params: { id: 'data.id' }, query: { note: 'data.attributes.code' } }),
    );
    const response = await send(app, 'POST', '/orders');
    expect(response.body.links.payment).toBe('/orders/a%2Fb/payments?note=a%20b');
  });

  it('refuses, naming both routes, a link to a route that is not declared', () => {
    const app = createApp().route(
      defineRoute({
        ...ORDERS,
        responses: {
          201: { description: 'x', links: { payment: linkTo(PAYMENTS, { params: { id: 'data.id' } }) } },
        },
        handler: () => json(201, dataDocument(null)),
      }),
    );
    expect(() => app.routes()).toThrow(
      new TypeError(
        'Route POST /orders: responses[201].links.payment leads to POST /orders/{id}/payments, which is not declared',
      ),
    );
    return expect(app.handle(requestView('GET', '/orders'))).rejects.toThrow(TypeError);
  });

  it('refuses, naming both routes, parameters that do not fit the target', () => {
    const declare = (link: unknown) => () =>
      createApp().route(
        defineRoute({
          ...ORDERS,
          responses: { 201: { description: 'x', links: { payment: link as never } } },
          handler: () => json(201, dataDocument(null)),
        }),
      );
    expect(declare(linkTo(PAYMENTS, {} as never))).toThrow(
      new TypeError(
        'Route POST /orders: responses[201].links.payment: POST /orders/{id}/payments needs {id}, which the link does not give',
      ),
    );
    expect(declare(linkTo(PAYMENTS, { params: { id: 'data.id', order: 'data.id' } as never }))).toThrow(
      /POST \/orders\/\{id\}\/payments has no path parameter \{order\}/,
    );
    expect(declare(linkTo(PAYMENTS, { params: { id: 'id' as never } }))).toThrow(/id must be 'data.id'/);
    expect(declare({ target: PAYMENTS, params: { id: 'data.id' } })).toThrow(
      /responses\[201\]\.links\.payment must be made by linkTo/,
    );
    expect(() =>
      createApp()
        .route(
          defineRoute({
            ...ORDERS,
            responses: {
              201: {
                description: 'x',
                links: {
                  payment: linkTo(PAYMENTS, { params: { id: 'data.id' }, query: { coupon: { value: 'x' } } }),
                },
              },
            },
            handler: () => json(201, dataDocument(null)),
          }),
        )
        .route(defineRoute({ ...PAYMENTS, handler: () => json(201, dataDocument(null)) }))
        .routes(),
    ).toThrow(
      new TypeError(
        'Route POST /orders: responses[201].links.payment: POST /orders/{id}/payments declares no query parameter coupon',
      ),
    );
  });

  it('refuses values taken from the resource of a collection', () => {
    expect(() =>
      createApp().route(
        defineRoute({
          method: 'GET',
          path: '/orders',
          responses: {
            200: {
              description: 'x',
              body: 'collection',
              links: { one: linkTo(ORDER, { params: { id: 'data.id' } }) },
            },
          },
          handler: () => json(200, dataDocument([])),
        }),
      ),
    ).toThrow(/the response is a collection/);
  });
});

/** RFC 3986: every UTF-8 byte but the unreserved characters (section 2.3) as an upper-case %XX (2.1). */
function modelEncoded(value: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(value)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

describe('targetUrl', () => {
  it('percent-encodes path parameters and query as RFC 3986 does, and a URL parser reads them back', () => {
    const segment = fc.stringMatching(/^[a-z][a-z-]{0,8}$/);
    const value = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            segment.map((s) => ({ s })),
            fc.constant({ p: true }),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        fc.array(value, { minLength: 5, maxLength: 5 }),
        fc.boolean(),
        fc.uniqueArray(fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }), value), {
          selector: ([name]) => name,
          maxLength: 3,
        }),
        (shape, values, trailing, query) => {
          let path = '';
          const params: Record<string, string> = {};
          let expected = '';
          shape.forEach((part, i) => {
            if ('s' in part) {
              path += `/${part.s}`;
              expected += `/${part.s}`;
            } else {
              path += `/{p${i}}`;
              params[`p${i}`] = values[i]!;
              expected += `/${modelEncoded(values[i]!)}`;
            }
          });
          if (trailing) {
            path += '/';
            expected += '/';
          }
          const pairs = query.map(([n, v]) => `${modelEncoded(n)}=${modelEncoded(v)}`);
          if (pairs.length > 0) expected += `?${pairs.join('&')}`;
          const url = targetUrl(routeTarget('GET', path), params, Object.fromEntries(query));
          expect(url).toBe(expected);
          // Each value is exactly one segment: a parser splits the path as the pattern does.
          const parsed = new URL(url, 'http://x');
          expect(parsed.pathname.split('/').length).toBe(path.split('/').length);
          expect([...parsed.searchParams.keys()].length).toBe(query.length);
        },
      ),
    );
  });

  it('refuses an empty or missing path parameter: it would name another resource', () => {
    expect(() => targetUrl(ORDER, { id: '' })).toThrow(TypeError);
    expect(targetUrl(routeTarget('GET', '/api/v1/standards/'), {})).toBe('/api/v1/standards/');
    expect(targetUrl(ORDER, { id: 7 }, { page: undefined, q: 'x y' })).toBe('/orders/7?q=x%20y');
  });
});
