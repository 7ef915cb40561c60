/**
 * The few commands the Redis stores send, as structural types: ioredis and node-redis clients fit
 * them, and the published declarations import neither (both are the application's choice).
 */

/** An ioredis `Redis` or `Cluster`: `EVALSHA`/`EVAL` with the key count and keys before the arguments. */
export interface IoredisScriptClient {
  /** `EVALSHA sha1 numkeys key... arg...` (run a cached script). */
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** `EVAL script numkeys key... arg...` (load and run a script). */
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
}

/** Keys and arguments of a node-redis script call. */
export interface NodeRedisScriptInput {
  keys: string[];
  arguments: string[];
}

/**
 * A node-redis (`redis` 4 to 6) client: `createClient()`, `createClientPool()`, `createCluster()` or
 * `createSentinel()`.
 */
export interface NodeRedisScriptClient {
  /** `EVALSHA` (run a cached script). */
  evalSha(sha1: string, options: NodeRedisScriptInput): Promise<unknown>;
  /** `EVAL` (load and run a script). */
  eval(script: string, options: NodeRedisScriptInput): Promise<unknown>;
}

/** The client a Redis store is given: an ioredis or a node-redis one, which the application owns. */
export type RedisScriptClient = IoredisScriptClient | NodeRedisScriptClient;

/** A Lua script and its SHA-1, for `EVALSHA`. */
interface Script {
  readonly source: string;
  readonly sha: string;
}

/** Runs a script on a client, whichever its library. */
type ScriptRunner = (
  script: Script,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

const isNodeRedis = (client: RedisScriptClient): client is NodeRedisScriptClient =>
  typeof (client as NodeRedisScriptClient).evalSha === 'function';

/** `client` has the script commands of ioredis or of node-redis (checked at start-up). */
export function isRedisScriptClient(client: unknown): client is RedisScriptClient {
  if (client === null || typeof client !== 'object') return false;
  const c = client as Record<string, unknown>;
  return typeof c.eval === 'function' && (typeof c.evalsha === 'function' || typeof c.evalSha === 'function');
}

const isNoScript = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

/**
 * `send(true)` runs a script by its SHA-1; when Redis answers `NOSCRIPT` (first use, or after
 * `SCRIPT FLUSH`), `send(false)` runs it by its source, which caches it.
 */
async function withScriptFallback<T>(send: (cached: boolean) => Promise<T>): Promise<T> {
  try {
    return await send(true);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return send(false);
  }
}

/**
 * A script's reply with bulk strings as strings, from a node-redis client whose `typeMapping` reads
 * them as `Buffer`s. (Asking node-redis for its default mapping per call instead, with
 * `withTypeMapping({})`, cost a keyed POST 20% more instructions.) Integers may likewise arrive as
 * strings: the stores read them with `Number`.
 */
function plainReply(reply: unknown): unknown {
  if (Array.isArray(reply)) return reply.map(plainReply);
  return reply instanceof Uint8Array
    ? Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength).toString()
    : reply;
}

/** Runs a script on `client`: `EVALSHA`, then `EVAL` when Redis answers `NOSCRIPT`. */
export function redisScriptRunner(client: RedisScriptClient): ScriptRunner {
  if (isNodeRedis(client)) {
    return async (script, keys, args) => {
      const input = { keys: [...keys], arguments: args.map(String) };
      return plainReply(
        await withScriptFallback((cached) =>
          cached ? client.evalSha(script.sha, input) : client.eval(script.source, input),
        ),
      );
    };
  }
  return (script, keys, args) =>
    withScriptFallback((cached) =>
      cached
        ? client.evalsha(script.sha, keys.length, ...keys, ...args)
        : client.eval(script.source, keys.length, ...keys, ...args),
    );
}

/** The commands of an ioredis pipeline the stores use (`Redis#pipeline()`, `Cluster#pipeline()`). */
interface IoredisPipeline {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): IoredisPipeline;
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): IoredisPipeline;
  call(command: string, ...args: (string | number)[]): IoredisPipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** The commands of a node-redis `multi()` the stores use, sent with `execAsPipeline()` (no `MULTI`). */
interface NodeRedisPipeline {
  evalSha(sha1: string, options: NodeRedisScriptInput): NodeRedisPipeline;
  eval(script: string, options: NodeRedisScriptInput): NodeRedisPipeline;
  wait(replicas: number, timeoutMs: number): NodeRedisPipeline;
  execAsPipeline(): Promise<unknown[]>;
}

interface ReplicaWait {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** Runs a script, then `WAIT`s for replicas; resolves the script's reply and the replicas that acknowledged. */
export type ScriptAndWaitRunner = (
  script: Script,
  keys: readonly string[],
  args: readonly (string | number)[],
  wait: ReplicaWait,
) => Promise<[reply: unknown, acknowledged: number]>;

/** A node-redis pipeline's replies, or the first command's error (NOSCRIPT) or the second's, thrown. */
async function nodeRedisReplies(pipeline: NodeRedisPipeline): Promise<unknown[]> {
  try {
    return await pipeline.execAsPipeline();
  } catch (error) {
    // node-redis reports failed commands together, as a MultiErrorReply with each reply.
    const replies = (error as { replies?: unknown[] }).replies;
    const failed = replies?.find((reply) => reply instanceof Error);
    throw failed ?? error;
  }
}

/**
 * A {@link ScriptAndWaitRunner} for `client`. `WAIT` counts the replicas that acknowledged every
 * write before it on its connection, so it goes in one pipeline with the script, which the client
 * sends on one connection to the node that holds the script's keys: ioredis' `pipeline()`, and
 * node-redis' `multi()` sent with `execAsPipeline()` (a pool's is sent on one connection, a
 * cluster's to the node of its first key). Throws a `TypeError` for a client with neither.
 */
export function redisScriptAndWaitRunner(client: RedisScriptClient, store: string): ScriptAndWaitRunner {
  if (isNodeRedis(client)) {
    const pipelined = client as NodeRedisScriptClient & { multi?: () => NodeRedisPipeline };
    if (typeof pipelined.multi !== 'function') {
      throw new TypeError(`${store}: replicas needs a client that can send a pipeline (multi())`);
    }
    const multi = pipelined.multi.bind(pipelined);
    // node-redis 4's createCluster() builds pipelines without a WAIT command (its createClient()
    // has one). A pipeline that is built, not sent, costs nothing.
    if (typeof multi().wait !== 'function') {
      throw new TypeError(
        `${store}: replicas needs a client whose pipeline can send WAIT: node-redis 4's createCluster() cannot (use node-redis 5 or later, or ioredis)`,
      );
    }
    return async (script, keys, args, wait) => {
      const input = { keys: [...keys], arguments: args.map(String) };
      const [reply, acknowledged] = await withScriptFallback((cached) => {
        const pipeline = cached ? multi().evalSha(script.sha, input) : multi().eval(script.source, input);
        return nodeRedisReplies(pipeline.wait(wait.replicas, wait.timeoutMs));
      });
      return [plainReply(reply), Number(acknowledged)];
    };
  }
  const pipelined = client as IoredisScriptClient & { pipeline?: () => IoredisPipeline };
  if (typeof pipelined.pipeline !== 'function') {
    throw new TypeError(`${store}: replicas needs a client that can send a pipeline (pipeline())`);
  }
  const pipeline = pipelined.pipeline.bind(pipelined);
  return async (script, keys, args, wait) => {
    const [ran, waited] = await withScriptFallback(async (cached) => {
      const sent = cached
        ? pipeline().evalsha(script.sha, keys.length, ...keys, ...args)
        : pipeline().eval(script.source, keys.length, ...keys, ...args);
      const [ran, waited] = (await sent.call('WAIT', wait.replicas, wait.timeoutMs).exec()) ?? [];
      if (ran === undefined || waited === undefined) throw new Error('Redis pipeline: no reply');
      if (ran[0] !== null) throw ran[0];
      if (waited[0] !== null) throw waited[0];
      return [ran[1], waited[1]] as const;
    });
    return [ran, Number(waited)];
  };
}
