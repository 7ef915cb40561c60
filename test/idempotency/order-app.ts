import { type App, createApp } from '../../src/app/app.js';
import { readBody } from '../../src/core/body.js';
import { created, json } from '../../src/core/response.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { ApiResponse, Context, Logger, Middleware } from '../../src/http/types.js';

/** Test-only authentication: the `x-user` header names the principal. */
export const userFromHeader: Middleware = async function userFromHeader(ctx, next) {
  const sub = ctx.request.headers.get('x-user');
  if (sub !== undefined) ctx.var.principal = { sub, scopes: new Set(), claims: { sub } };
  return next();
};

export interface OrderInput {
  readonly bookId: number;
  readonly quantity: number;
}

/** Parse an order body; invalid bodies are a 422 (a client error, stored and replayed). */
export async function orderInput(ctx: Context): Promise<OrderInput> {
  const text = Buffer.from(await readBody(ctx)).toString('utf8');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ApiError(400, { code: 'invalid-json', detail: 'The body is not JSON.' });
  }
  const { bookId, quantity } = (document ?? {}) as Record<string, unknown>;
  if (!Number.isInteger(bookId) || !Number.isInteger(quantity) || (quantity as number) < 1) {
    throw new ApiError(422, {
      code: 'invalid-order',
      detail: 'bookId and quantity (>= 1) are required integers.',
    });
  }
  return { bookId: bookId as number, quantity: quantity as number };
}

export interface OrderAppOptions {
  /** The idempotency middleware (or none, to compare). */
  readonly idempotency?: Middleware;
  /** Awaited by the handler after validating the body and before creating the order. */
  readonly beforeCreate?: (input: OrderInput, ctx: Context) => Promise<void> | void;
  /** Replace the response the handler builds (to test other statuses, headers, streams). */
  readonly respond?: (order: { id: number } & OrderInput, ctx: Context) => ApiResponse;
  /** The route's body limit (default: the library's, 100 KiB). */
  readonly bodyLimit?: number;
  /** Where the app logs (default: nowhere). */
  readonly logger?: Logger;
}

export interface OrderApp {
  readonly app: App;
  /** Every order the handler created, in order. */
  readonly orders: ({ id: number; sub: string | undefined } & OrderInput)[];
  /** How many times the handler started. */
  readonly runs: { count: number };
}

/** A tiny app: `POST /orders` creates an order in a counter-backed list. */
export function orderApp(options: OrderAppOptions = {}): OrderApp {
  const orders: OrderApp['orders'] = [];
  const runs = { count: 0 };
  const app = createApp({
    use: [userFromHeader],
    logger: options.logger ?? { error: () => {}, warn: () => {} },
  });
  app.route({
    method: 'POST',
    path: '/orders',
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    use: options.idempotency ? [options.idempotency] : [],
    handler: async (ctx) => {
      runs.count++;
      const input = await orderInput(ctx);
      await options.beforeCreate?.(input, ctx);
      const order = { id: orders.length + 1, sub: ctx.var.principal?.sub, ...input };
      orders.push(order);
      if (options.respond) return options.respond(order, ctx);
      return created(
        `/orders/${order.id}`,
        { data: { type: 'orders', id: String(order.id), attributes: input } },
        { etag: `"${order.id}"`, 'set-cookie': `seen=${order.id}` },
      );
    },
  });
  app.route({
    method: 'GET',
    path: '/orders',
    use: options.idempotency ? [options.idempotency] : [],
    handler: () => json(200, { data: [] }),
  });
  return { app, orders, runs };
}

/** The response body as bytes (a stored or replayed body is raw bytes; a JSON one is serialized). */
export async function bodyOf(response: ApiResponse): Promise<Buffer> {
  const { raw } = response;
  if (raw === undefined) return Buffer.from(response.json === undefined ? '' : JSON.stringify(response.json));
  if (typeof raw === 'string' || raw instanceof Uint8Array) return Buffer.from(raw);
  const chunks: Uint8Array[] = [];
  for await (const chunk of raw) chunks.push(chunk);
  return Buffer.concat(chunks);
}
