/**
 * The few commands the Redis stores send, as a structural type: an ioredis `Redis` or `Cluster`
 * fits it, and the published declarations do not import `ioredis` (an optional peer dependency).
 */
export interface RedisScriptClient {
  /** `EVALSHA sha1 numkeys key... arg...` (run a cached script). */
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** `EVAL script numkeys key... arg...` (load and run a script). */
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
}

/**
 * Run a Lua script by its SHA-1 and, on a server that has not cached it yet (first use, or after
 * `SCRIPT FLUSH`), by its source, which caches it: Redis `EVALSHA` answers `NOSCRIPT`.
 */
export async function runRedisScript(
  client: RedisScriptClient,
  script: { readonly source: string; readonly sha: string },
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.source, keys.length, ...keys, ...args);
  }
}

/** `client` has the commands of {@link RedisScriptClient} (checked at start-up). */
export function isRedisScriptClient(client: unknown): client is RedisScriptClient {
  return (
    client !== null &&
    typeof client === 'object' &&
    typeof (client as RedisScriptClient).evalsha === 'function' &&
    typeof (client as RedisScriptClient).eval === 'function'
  );
}

/** The commands of an ioredis pipeline the stores use (`Redis#pipeline()`, `Cluster#pipeline()`). */
interface RedisPipeline {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: (string | number)[]): RedisPipeline;
  eval(script: string, numkeys: number, ...keysAndArgs: (string | number)[]): RedisPipeline;
  call(command: string, ...args: (string | number)[]): RedisPipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** A client that can also send a pipeline: one write, to the node of the pipeline's keys. */
export interface RedisPipelineClient extends RedisScriptClient {
  pipeline(): RedisPipeline;
}

/** `client` can send a pipeline (checked at start-up). */
export function isRedisPipelineClient(client: unknown): client is RedisPipelineClient {
  return isRedisScriptClient(client) && typeof (client as RedisPipelineClient).pipeline === 'function';
}

/**
 * Run a script, then `WAIT replicas timeoutMs` on the same connection, in one pipeline: on Redis
 * Cluster the pipeline goes to the node that holds the script's keys, so the WAIT counts the
 * replicas of that node that acknowledged the script's writes (and every write before it on the
 * connection). Resolves the script's reply and the number of replicas that acknowledged.
 */
export async function runRedisScriptAndWait(
  client: RedisPipelineClient,
  script: { readonly source: string; readonly sha: string },
  keys: readonly string[],
  args: readonly (string | number)[],
  wait: { readonly replicas: number; readonly timeoutMs: number },
): Promise<[reply: unknown, acknowledged: number]> {
  const send = async (cached: boolean) => {
    const pipeline = client.pipeline();
    if (cached) pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
    else pipeline.eval(script.source, keys.length, ...keys, ...args);
    const results = (await pipeline.call('WAIT', wait.replicas, wait.timeoutMs).exec()) ?? [];
    const [ran, waited] = results;
    if (ran === undefined || waited === undefined) throw new Error('Redis pipeline: no reply');
    return [ran, waited] as const;
  };
  let [ran, waited] = await send(true);
  if (ran[0] instanceof Error && ran[0].message.startsWith('NOSCRIPT')) [ran, waited] = await send(false);
  if (ran[0] !== null) throw ran[0];
  if (waited[0] !== null) throw waited[0];
  return [ran[1], Number(waited[1])];
}
