/** One shared store a ready instance needs, and how to ask it whether it answers. */
export interface ReadinessCheck {
  /** What the instance reports when this store is down: `postgres` or `redis`. */
  readonly name: string;
  /** Resolves when the store answered; rejects (or never settles) otherwise. */
  check(): Promise<unknown>;
}

/** How long each store gets to answer a readiness probe. */
export const READINESS_TIMEOUT_MS = 1000;

/**
 * Ask every store at once, each bounded by `timeoutMs`; return the names of those that failed or did
 * not answer in time (empty: ready). Failures' causes stay here: a probe only learns names.
 */
export async function unreadyStores(
  checks: readonly ReadinessCheck[],
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<string[]> {
  const outcomes = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
      });
      try {
        await Promise.race([check(), late]);
        return undefined;
      } catch {
        return name;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return outcomes.filter((name): name is string => name !== undefined);
}
