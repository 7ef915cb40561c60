import type { Redis } from 'ioredis';

/** A command Redis ran, and the client address that sent it (`lua` for a script's own commands). */
export interface MonitoredCommand {
  readonly args: string[];
  readonly source: string;
}

/** How long `settle` waits for its marker: only a hung Redis takes that long. */
const SETTLE_BOUND_MS = 30_000;

/**
 * Every command `redis`'s server runs from now on whose arguments hold `prefix` (and, with
 * `waits`, every `WAIT`, which names no key: only on a server of the test's own, where no other
 * test file sends any), through Redis' own MONITOR (it lists the commands scripts run too, as from
 * `lua`). `settle` resolves once every command Redis ran before it was called has been seen; `stop`
 * ends the monitor.
 */
export async function monitored(redis: Redis, prefix: string, { waits = false } = {}) {
  // A connection of its own for MONITOR, as `redis.monitor()` opens, but listened to before it
  // connects: ioredis reports monitor lines that arrive with MONITOR's own OK, before it counts
  // itself in monitoring mode, as "Command queue state error" events, and `redis.monitor()` would
  // reject with the first and leave the next unhandled. Those lines are other clients' commands
  // from before this call returns, which nothing here counts.
  const monitor = redis.duplicate({ monitor: true, lazyConnect: true });
  monitor.on('error', () => {});
  // Not events.once: it would reject at such an error event.
  const monitoring = new Promise((resolve) => monitor.once('monitoring', resolve));
  await monitor.connect();
  await monitoring;
  const seen: MonitoredCommand[] = [];
  const markerPrefix = `${prefix}settled-marker:${process.pid}:${Math.random()}:`;
  const markers = new Map<string, () => void>();
  let settles = 0;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const marker = args[1] === undefined ? undefined : markers.get(args[1]);
    if (marker !== undefined) return marker();
    if (args.some((arg) => arg.startsWith(prefix)) || (waits && args[0]?.toLowerCase() === 'wait'))
      seen.push({ args, source });
  });
  /**
   * MONITOR streams commands in the order Redis runs them: once a marker command sent now comes
   * back, so has every command run before it, however late a loaded machine delivers them.
   */
  const settle = async () => {
    const marker = `${markerPrefix}${++settles}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((resolve, reject) => {
      markers.set(marker, resolve);
      timer = setTimeout(
        () => reject(new Error(`MONITOR did not show a command within ${SETTLE_BOUND_MS} ms`)),
        SETTLE_BOUND_MS,
      );
    });
    try {
      await redis.exists(marker);
      await arrived;
    } finally {
      clearTimeout(timer);
      markers.delete(marker);
    }
  };
  return { seen, settle, stop: () => monitor.disconnect() };
}
