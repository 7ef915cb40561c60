/**
 * `express-idempotency` on the Express peer, wired the way its README shows: the middleware before
 * the handler, which returns at once when `isHit(req)` (the middleware answered with a replay).
 * Storage: `PEER_STORE=memory` (the library's default in-memory adapter), `redis`
 * (`express-idempotency-redis-adapter`, a node-redis client on REDIS_URL) or `cluster` (the same
 * adapter given a node-redis cluster client on REDIS_CLUSTER_NODES as its `connectionInstance`).
 */
import { createCluster } from '@redis/client';
import type { Request, RequestHandler } from 'express';
import { getSharedIdempotencyService, idempotency } from 'express-idempotency';
import RedisAdapterModule from 'express-idempotency-redis-adapter';

// A CommonJS module whose class is `exports.default`: under Node's ESM loader the default import is
// the whole `exports` object.
const RedisAdapter =
  (RedisAdapterModule as unknown as { default?: typeof RedisAdapterModule }).default ?? RedisAdapterModule;

/** The middleware, and whether the library already answered a request. */
export async function expressIdempotency(): Promise<{
  middleware: RequestHandler;
  isHit: (req: Request) => boolean;
}> {
  let dataAdapter: InstanceType<typeof RedisAdapter> | undefined;
  if (process.env.PEER_STORE === 'redis') {
    dataAdapter = new RedisAdapter({
      connectionConfig: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    });
    await dataAdapter.connect();
  } else if (process.env.PEER_STORE === 'cluster') {
    const nodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',');
    const cluster = createCluster({ rootNodes: nodes.map((node) => ({ url: `redis://${node}` })) });
    // The adapter calls get, set, del and connect, which a cluster client has too.
    type Instance = NonNullable<ConstructorParameters<typeof RedisAdapter>[0]>['connectionInstance'];
    dataAdapter = new RedisAdapter({ connectionInstance: cluster as unknown as Instance });
    await dataAdapter.connect();
  }
  const middleware = idempotency(
    dataAdapter === undefined ? {} : { dataAdapter },
  ) as unknown as RequestHandler;
  const service = getSharedIdempotencyService();
  return { middleware, isHit: (req) => service.isHit(req) };
}
