import type { Redis } from 'ioredis';

/** A command Redis ran, and the client address that sent it (`lua` for a script's own commands). */
export interface MonitoredCommand {
  readonly args: string[];
  readonly source: string;
}

/**
 * Every command `redis`'s server runs from now on whose arguments hold `prefix` (and, with
 * `waits`, every `WAIT`, which names no key: only on a server of the test's own, where no other
 * test file sends any), through Redis' own MONITOR (it lists the commands scripts run too, as from
 * `lua`). `settle` lets the last ones arrive; `stop` ends the monitor.
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
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args.some((arg) => arg.startsWith(prefix)) || (waits && args[0]?.toLowerCase() === 'wait'))
      seen.push({ args, source });
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  return { seen, settle, stop: () => monitor.disconnect() };
}
