/**
 * `@node-idempotency/core` on the Fastify peer, wired the way its Fastify plugin's README and source
 * show (`@node-idempotency/fastify` itself is not published on npm): `onRequest` in a `preHandler`
 * hook, a replay sent from there; `onResponse` in an `onSend` hook with the status and the payload.
 * Storage: `PEER_STORE=memory` (`@node-idempotency/storage-adapter-memory`) or `redis`
 * (`@node-idempotency/storage-adapter-redis`, a node-redis client on REDIS_URL).
 */
import { Idempotency, IdempotencyError } from '@node-idempotency/core';
import { MemoryStorageAdapter } from '@node-idempotency/storage-adapter-memory';
import { RedisStorageAdapter } from '@node-idempotency/storage-adapter-redis';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type StorageAdapter = ConstructorParameters<typeof Idempotency>[0];

async function storage(): Promise<StorageAdapter> {
  if (process.env.PEER_STORE !== 'redis') return new MemoryStorageAdapter();
  const adapter = new RedisStorageAdapter({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await adapter.connect();
  return adapter;
}

const params = (request: FastifyRequest) => ({
  headers: request.headers,
  body: request.body as Record<string, unknown>,
  path: request.url,
  method: request.method,
});

/** Adds the library's two hooks to `app` (all routes; it acts on keyed POST and PATCH only). */
export async function useNodeIdempotency(app: FastifyInstance): Promise<void> {
  const idempotency = new Idempotency(await storage(), {
    cacheKeyPrefix: process.env.STORE_PREFIX ?? 'bench',
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const seen = await idempotency.onRequest<unknown, unknown>(params(request));
      if (seen === undefined) return;
      const status = seen.additional?.statusCode;
      if (typeof status === 'number') reply.code(status);
      return reply.header('idempotent-replayed', 'true').send(seen.body ?? seen.error);
    } catch (error) {
      if (!(error instanceof IdempotencyError)) throw error;
      return reply.code(409).send({ errors: [{ status: '409', title: error.message }] });
    }
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const additional = { statusCode: reply.statusCode };
    const stored = reply.statusCode < 400 ? { body: payload } : { error: payload };
    await idempotency.onResponse(params(request), { additional, ...stored });
    return payload;
  });
}
