import type { Cluster, Redis } from 'ioredis';
import { createRemoteJWKSet, type JWTPayload } from 'jose';
import type { Client, Pool, PoolClient } from 'pg';
import type { RedisClientPoolType, RedisClientType, RedisClusterType } from 'redis';
import type { RedisClientType as RedisClientType4 } from 'redis-v4';
import type { RedisClientType as RedisClientType5 } from 'redis-v5';
import { expectTypeOf, test } from 'vitest';
import type { JwtClaims, JwtKeyResolver } from '../../src/auth/index.js';
import type {
  ConnectionPool,
  PooledConnection,
  Queryable,
  RedisScriptClient,
} from '../../src/idempotency/index.js';

test('the real pg, ioredis and node-redis clients fit the structural client types', () => {
  expectTypeOf<Pool>().toExtend<ConnectionPool>();
  expectTypeOf<Pool>().toExtend<Queryable>();
  expectTypeOf<Client>().toExtend<Queryable>();
  expectTypeOf<PoolClient>().toExtend<PooledConnection>();
  expectTypeOf<Redis>().toExtend<RedisScriptClient>();
  expectTypeOf<Cluster>().toExtend<RedisScriptClient>();
  expectTypeOf<RedisClientType>().toExtend<RedisScriptClient>();
  expectTypeOf<RedisClusterType>().toExtend<RedisScriptClient>();
  expectTypeOf<RedisClientPoolType>().toExtend<RedisScriptClient>();
  expectTypeOf<RedisClientType5>().toExtend<RedisScriptClient>();
  expectTypeOf<RedisClientType4>().toExtend<RedisScriptClient>();
});

test('jose key resolvers and payloads fit the auth types, which do not import jose', () => {
  expectTypeOf(createRemoteJWKSet(new URL('https://issuer.example/jwks'))).toExtend<JwtKeyResolver>();
  expectTypeOf<JWTPayload>().toExtend<JwtClaims>();
});
