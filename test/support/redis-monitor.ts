import type { Redis } from 'ioredis';

/** A command Redis ran, and the client address that sent it (`lua` for a script's own commands). */
export interface MonitoredCommand {
  readonly args: string[];
  readonly source: string;
}

/**
 * Every command `redis`'s server runs from now on whose arguments hold `prefix`, and every `WAIT`,
 * through Redis' own MONITOR (it lists the commands scripts run too, as from `lua`). `settle` lets
 * the last ones arrive; `stop` ends the monitor.
 */
export async function monitored(redis: Redis, prefix: string) {
  const monitor = await redis.duplicate().monitor();
  const seen: MonitoredCommand[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args.some((arg) => arg.startsWith(prefix)) || args[0]?.toLowerCase() === 'wait')
      seen.push({ args, source });
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  return { seen, settle, stop: () => monitor.disconnect() };
}
