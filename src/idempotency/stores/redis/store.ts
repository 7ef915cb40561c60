import { positiveInteger } from '../../../errors/option-checks.js';
import {
  isRedisScriptClient,
  type RedisScriptClient,
  redisScriptAndWaitRunner,
  redisScriptRunner,
  type ScriptAndWaitRunner,
} from '../../../stores/redis-client.js';
import { checkPrefix } from '../../../stores/redis-hash-tag.js';
import {
  ANONYMOUS_OWNER,
  briefResponse,
  claimBytes,
  RECORD_OVERHEAD_BYTES,
  readStoreLimits,
  recordBytes,
} from '../limits.js';
import {
  type ClaimOutcome,
  type IdempotencyStore,
  NotReplicatedError,
  type StoredResponse,
} from '../store.js';
import { type IssuedToken, issuedToken, ownerKeys, readToken, recordToken } from './keys.js';
import { claimScript, completeScript, type Script, scripts } from './scripts.js';

/** Options of {@link redisIdempotencyStore}: the client, a key prefix, the per-owner budgets and durability. */
export interface RedisIdempotencyStoreOptions {
  /**
   * The application's client, which the store never closes: an ioredis `Redis` or `Cluster`, or a
   * node-redis `createClient()`, `createClientPool()`, `createCluster()` or `createSentinel()` (see
   * {@link RedisScriptClient}), connected.
   */
  readonly client: RedisScriptClient;
  /**
   * Prefix of every key this store writes (default `idempotency:`), without `{` or `}`: the store
   * puts a Redis Cluster hash tag per owner after it, so owners spread over the cluster's masters.
   */
  readonly prefix?: string;
  /** Most records one owner (principal or anonymous client) holds at once (default 1 000). */
  readonly ownerMaxEntries?: number;
  /** Most bytes one owner holds at once (default 4 MiB). */
  readonly ownerMaxBytes?: number;
  /**
   * Replicas that must acknowledge a completed record before `complete` resolves true (default 0:
   * the master's answer only). With 1, a completed record survives a failover to a replica that
   * acknowledged it (Redis `WAIT`, docs/deployment.md, "Redis Cluster"). Fewer acknowledgements
   * within `replicationTimeoutMs` reject the completion with a {@link NotReplicatedError} (the
   * record is stored on the master; the middleware logs a warning and still sends the response).
   * A claim also reads how many replicas its master has online and acknowledging (`INFO
   * replication`: `state=online` and `lag` at most `replicaMaxLagSeconds`); when too few were, the
   * completion does not wait at all (a `WAIT` holds its connection, and every command queued behind
   * it, for the whole timeout) and rejects at once the same way.
   */
  readonly replicas?: number;
  /** How long a completion waits for `replicas` (default 100 ms; the record stays completed). */
  readonly replicationTimeoutMs?: number;
  /**
   * Seconds since its last acknowledgement past which a replica is not waited for (default 10, as
   * Redis' `min-replicas-max-lag`). A replica acknowledges every second, a few seconds late on a
   * loaded machine; one that hung or was cut off stays online on its master until `repl-timeout`
   * (60 s by default), and until this lag is reached each completion on that master waits out
   * `replicationTimeoutMs`.
   */
  readonly replicaMaxLagSeconds?: number;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/**
 * How long past its logical expiry a record physically lingers: expiry is decided against the
 * clock passed in (so every store obeys the same `now`), and Redis' own TTL only garbage-collects.
 */
const GRACE_MS = 60_000;

type Reply = string | number | null | Reply[];

/** A completed record's state, `c<status>,<base64 body>,<headers as JSON>` (scripts.ts). */
function decodeCompleted(state: string): StoredResponse {
  const status = 1;
  const body = state.indexOf(',', status) + 1;
  const headers = state.indexOf(',', body) + 1;
  return {
    status: Number(state.slice(status, body - 1)),
    headers: JSON.parse(state.slice(headers)) as Record<string, string>,
    body: new Uint8Array(Buffer.from(state.slice(body, headers - 1), 'base64')),
  };
}

/**
 * A completed record's state (`c<status>,<base64 body>,<headers as JSON>`) and the bytes the
 * response adds to a record's count (status, headers, body: `recordBytes` less the key, the
 * fingerprint and the overhead).
 */
function completedState(response: StoredResponse): [state: string, bytes: string] {
  const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
  return [
    `c${response.status},${body.toString('base64')},${JSON.stringify(response.headers)}`,
    String(recordBytes('', '', response) - RECORD_OVERHEAD_BYTES),
  ];
}

/** A script's 1 (done), whether the client read the integer as a number or a string. */
const isOne = (reply: Reply) => !Array.isArray(reply) && Number(reply) === 1;

function decodeClaim(reply: Reply, stored: string): ClaimOutcome {
  if (isOne(reply)) return { kind: 'claimed', token: issuedToken(stored, undefined) };
  const answer = reply as string[];
  switch (answer[0]) {
    case 'claimed':
      return { kind: 'claimed', token: issuedToken(stored, Number(answer[1])) };
    case 'full':
      // Without a wait: no wait makes room (the claim alone is over the owner's byte budget).
      return answer[1] === undefined || answer[1] === null
        ? { kind: 'full', scope: 'owner' }
        : { kind: 'full', scope: 'owner', retryAfterMs: Number(answer[1]) };
    case 'completed':
      return { kind: 'completed', response: decodeCompleted(answer[1] ?? '') };
    case 'mismatch':
      return { kind: 'mismatch' };
    case 'in-progress':
      return { kind: 'in-progress' };
    default:
      throw new Error('redisIdempotencyStore: unexpected reply from the claim script');
  }
}

interface Durability {
  readonly replicas: number;
  readonly timeoutMs: number;
  /** When `replicas` > 0: the claim script counts replicas silent at most this long (seconds). */
  readonly maxLagSeconds?: number;
  /** How a completion runs and waits, when `replicas` > 0. */
  readonly runAndWait?: ScriptAndWaitRunner;
}

type DurabilityOption = 'replicas' | 'replicationTimeoutMs' | 'replicaMaxLagSeconds';

/** The option `name`, else `fallback`: an integer of at least `min`, or a TypeError naming it. */
function integerOption(
  options: RedisIdempotencyStoreOptions,
  name: DurabilityOption,
  fallback: number,
  min: 0 | 1,
): number {
  return positiveInteger('redisIdempotencyStore', name, options[name], fallback, min);
}

function readDurability(options: RedisIdempotencyStoreOptions): Durability {
  const replicas = integerOption(options, 'replicas', 0, 0);
  const timeoutMs = integerOption(options, 'replicationTimeoutMs', 100, 1);
  const maxLagSeconds = integerOption(options, 'replicaMaxLagSeconds', 10, 1);
  if (replicas === 0) return { replicas, timeoutMs };
  const runAndWait = redisScriptAndWaitRunner(options.client, 'redisIdempotencyStore');
  return { replicas, timeoutMs, maxLagSeconds, runAndWait };
}

/**
 * A Redis {@link IdempotencyStore}, safe with several app instances and on Redis Cluster: each
 * operation is one Lua script, so claim, renew, complete and release are atomic and fenced by the
 * claim's token, and each script touches only keys of the record's owner, which share one hash
 * slot (keys.ts). The application passes its own ioredis or node-redis client; neither
 * library's types are imported.
 *
 * A key is scoped to its owner: the same key claimed by two owners is two records.
 *
 * Bounded per owner (defaults: 1 000 records, 4 MiB), exactly and atomically, with no store-wide
 * counter a cluster would have to serialize on: owners cannot fill the store for each other, and the
 * store as a whole is bounded by its owners' quotas and Redis `maxmemory`. Records leave by their
 * Redis TTL; an expired record counts until its key is claimed again or a claim that does not fit
 * reclaims every expired record of the owner, so `full` means live records fill the quota (no live
 * record is ever dropped to make room).
 *
 * Which client, and how to set it up for speed: docs/idempotency.md, "Stores".
 *
 * @example
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const store = redisIdempotencyStore({ client });
 * app.route({ method: 'POST', path: '/orders', use: [idempotency({ store })], handler });
 */
export function redisIdempotencyStore(options: RedisIdempotencyStoreOptions): IdempotencyStore {
  const { client } = options;
  if (!isRedisScriptClient(client)) {
    throw new TypeError('redisIdempotencyStore: `client` must be an ioredis or node-redis client');
  }
  for (const name of ['maxEntries', 'maxBytes'] as const) {
    if ((options as unknown as Record<string, unknown>)[name] !== undefined) {
      throw new TypeError(
        `redisIdempotencyStore: ${name} is not a budget of the Redis store (it has none store-wide; bound Redis with maxmemory)`,
      );
    }
  }
  const prefix = checkPrefix('redisIdempotencyStore', options.prefix ?? 'idempotency:');
  const now = options.now ?? Date.now;
  // Only the per-owner budgets apply: the store-wide ones are rejected above.
  const unbounded = { maxEntries: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };
  const limits = readStoreLimits('redisIdempotencyStore', options, unbounded);
  const durability = readDurability(options);
  const claimer = claimScript(limits, durability.maxLagSeconds);
  const completer = completeScript(limits);
  const runScript = redisScriptRunner(client);

  /** A script's keys and arguments: the owner's hash, then `now`, the record's field, the rest. */
  const scriptInput = (owner: string, key: string, args: readonly string[]): [string[], string[]] => {
    const k = ownerKeys(prefix, owner, key);
    return [[k.owner], [args[0]!, k.field, ...args.slice(1)]];
  };
  const run = async (script: Script, owner: string, key: string, args: readonly string[]) =>
    (await runScript(script, ...scriptInput(owner, key, args))) as Reply;
  /** `now` and, for a record kept `ms` from now, its expiry and its Redis TTL (grace included). */
  const clock = (ms: number): [now: string, expiry: string, ttl: string] => {
    const t = Math.floor(now());
    const span = Math.ceil(ms);
    return [String(t), String(t + span), String(span + GRACE_MS)];
  };
  const complete = async (token: IssuedToken, key: string, args: readonly string[]) => {
    const { replicas, timeoutMs, runAndWait } = durability;
    if (runAndWait === undefined) return run(completer, token.owner, key, args);
    const online = token.onlineReplicas ?? replicas;
    if (online < replicas) {
      const reply = await run(completer, token.owner, key, args);
      if (!isOne(reply)) return reply;
      throw new NotReplicatedError(
        0,
        replicas,
        `redisIdempotencyStore: the record is stored on its master, which had ${online} of ${replicas} replicas online and acknowledging at the claim: not waited for`,
      );
    }
    const [reply, acknowledged] = await runAndWait(
      completer,
      ...scriptInput(token.owner, key, args),
      durability,
    );
    if (isOne(reply as Reply) && acknowledged < replicas) {
      // Completed on the master, but a failover now could lose it: not a completion to rely on.
      throw new NotReplicatedError(
        acknowledged,
        replicas,
        `redisIdempotencyStore: the record is stored on its master, and ${acknowledged} of ${replicas} replicas acknowledged it within ${timeoutMs} ms`,
      );
    }
    return reply as Reply;
  };

  return {
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER): Promise<ClaimOutcome> {
      const stored = recordToken(owner);
      const [t, expiry, ttl] = clock(leaseMs);
      const bytes = String(claimBytes(key, fingerprint));
      return decodeClaim(
        await run(claimer, owner, key, [t, fingerprint, stored, expiry, ttl, bytes]),
        stored,
      );
    },
    async renew(key, token, leaseMs) {
      const issued = readToken(token);
      if (issued === undefined) return false;
      const [t, expiry, ttl] = clock(leaseMs);
      return isOne(await run(scripts.renew, issued.owner, key, [t, issued.stored, expiry, ttl]));
    },
    async complete(key, token, response: StoredResponse, retentionMs) {
      const issued = readToken(token);
      if (issued === undefined) return false;
      const [t, expiry, ttl] = clock(retentionMs);
      // The whole response and its brief: the script keeps the one the owner's budget has room for.
      const brief = briefResponse(response);
      const args = [t, issued.stored, expiry, ttl, ...completedState(response), ...completedState(brief)];
      return isOne(await complete(issued, key, args));
    },
    async release(key, token) {
      const issued = readToken(token);
      if (issued === undefined) return false;
      return isOne(await run(scripts.release, issued.owner, key, [String(Math.floor(now())), issued.stored]));
    },
  };
}
