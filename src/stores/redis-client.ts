/**
 * The few commands the Redis stores send, as structural types: ioredis and node-redis clients fit
 * them, and the published declarations import neither (both are the application's choice).
 */

/** An ioredis `Redis` or `Cluster`: `EVALSHA`/`EVAL` with the key count and keys before the arguments. */
interface IoredisScriptClient {
  /** `EVALSHA sha1 numkeys key... arg...` (run a cached script). */
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** `EVAL script numkeys key... arg...` (load and run a script). */
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
}

/** Keys and arguments of a node-redis script call. */
interface NodeRedisScriptInput {
  keys: string[];
  arguments: string[];
}

/** A node-redis (`redis` 4 or later) client, from `createClient()` or `createCluster()`. */
interface NodeRedisScriptClient {
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

/** A node-redis cluster (`createCluster()`): commands go to the node of their first key. */
const isNodeRedisCluster = (client: object) =>
  'masters' in client || typeof (client as { getMasters?: unknown }).getMasters === 'function';

/**
 * How a node-redis `createClient()` sends any command on its one connection; `undefined` for a
 * cluster, whose `sendCommand` takes the key to route by first.
 */
function nodeRedisSender(client: NodeRedisScriptClient): ((args: string[]) => Promise<unknown>) | undefined {
  const { sendCommand } = client as Partial<NodeRedisCommandClient>;
  if (isNodeRedisCluster(client) || typeof sendCommand !== 'function') return undefined;
  return sendCommand.bind(client);
}

/** `client` has the script commands of ioredis or of node-redis (checked at start-up). */
export function isRedisScriptClient(client: unknown): client is RedisScriptClient {
  if (client === null || typeof client !== 'object') return false;
  const c = client as Record<string, unknown>;
  return typeof c.eval === 'function' && (typeof c.evalsha === 'function' || typeof c.evalSha === 'function');
}

const isNoScript = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

/**
 * Run a Lua script by its SHA-1 and, on a server that has not cached it yet (first use, or after
 * `SCRIPT FLUSH`), by its source, which caches it: Redis `EVALSHA` answers `NOSCRIPT`.
 */
export function redisScriptRunner(client: RedisScriptClient): ScriptRunner {
  if (isNodeRedis(client)) {
    const sender = nodeRedisSender(client);
    if (sender !== undefined) {
      // The raw command skips node-redis' per-command parser: a third less of its CPU per call.
      return async (script, keys, args) => {
        const tail = [String(keys.length), ...keys, ...args.map(String)];
        try {
          return await sender(['EVALSHA', script.sha, ...tail]);
        } catch (error) {
          if (!isNoScript(error)) throw error;
          return sender(['EVAL', script.source, ...tail]);
        }
      };
    }
    return async (script, keys, args) => {
      const input = { keys: [...keys], arguments: args.map(String) };
      try {
        return await client.evalSha(script.sha, input);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        return client.eval(script.source, input);
      }
    };
  }
  return async (script, keys, args) => {
    try {
      return await client.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return client.eval(script.source, keys.length, ...keys, ...args);
    }
  };
}

/** The commands of an ioredis pipeline the stores use (`Redis#pipeline()`, `Cluster#pipeline()`). */
interface RedisPipeline {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): RedisPipeline;
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): RedisPipeline;
  call(command: string, ...args: (string | number)[]): RedisPipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** An ioredis client, which can also send a pipeline: one write, to the node of the pipeline's keys. */
interface IoredisPipelineClient extends IoredisScriptClient {
  pipeline(): RedisPipeline;
}

/** A node-redis client from `createClient()`, which sends any command on its one connection. */
interface NodeRedisCommandClient extends NodeRedisScriptClient {
  sendCommand(args: string[]): Promise<unknown>;
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

/**
 * A {@link ScriptAndWaitRunner} for `client`, or a reason it cannot wait for replicas. `WAIT`
 * counts the replicas that acknowledged every write before it on its connection, so it must follow
 * the script on the connection to the node that holds the script's keys:
 * - ioredis (`Redis` or `Cluster`): the script and `WAIT` in one pipeline, which goes to that node;
 * - node-redis `createClient()`: `WAIT` sent once the script has answered, on the client's one connection;
 * - a node-redis cluster cannot send a keyless `WAIT` to the node of a given key, so it is refused.
 */
export function redisScriptAndWaitRunner(client: RedisScriptClient): ScriptAndWaitRunner | string {
  if (isNodeRedis(client)) {
    const send = nodeRedisSender(client);
    if (send === undefined) {
      return 'replicas needs an ioredis client or a node-redis createClient() (a node-redis cluster cannot send WAIT to the node of a key)';
    }
    const run = redisScriptRunner(client);
    return async (script, keys, args, wait) => {
      const reply = await run(script, keys, args);
      const acknowledged = await send(['WAIT', String(wait.replicas), String(wait.timeoutMs)]);
      return [reply, Number(acknowledged)];
    };
  }
  if (typeof (client as Partial<IoredisPipelineClient>).pipeline !== 'function') {
    return 'replicas needs a client with pipeline() (an ioredis client)';
  }
  const pipelined = client as IoredisPipelineClient;
  return async (script, keys, args, wait) => {
    const send = async (cached: boolean) => {
      const pipeline = pipelined.pipeline();
      if (cached) pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
      else pipeline.eval(script.source, keys.length, ...keys, ...args);
      const results = (await pipeline.call('WAIT', wait.replicas, wait.timeoutMs).exec()) ?? [];
      const [ran, waited] = results;
      if (ran === undefined || waited === undefined) throw new Error('Redis pipeline: no reply');
      return [ran, waited] as const;
    };
    let [ran, waited] = await send(true);
    if (isNoScript(ran[0])) [ran, waited] = await send(false);
    if (ran[0] !== null) throw ran[0];
    if (waited[0] !== null) throw waited[0];
    return [ran[1], Number(waited[1])];
  };
}
