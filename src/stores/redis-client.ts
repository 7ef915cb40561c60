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
