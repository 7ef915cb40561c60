/** A claim whose handler is running: what a renewal needs. */
export interface RunningClaim {
  readonly key: string;
  readonly token: string;
  /** The tick at which the claim was taken or last renewed. */
  tick: number;
}

/**
 * The claims whose handlers are running, renewed by one timer per middleware instead of one interval
 * per request. The timer ticks every sixth of the lease; a claim is renewed on the second tick after
 * it was taken or last renewed. So a renewal comes more than a sixth and at most a third of the lease
 * after the claim (then every third), never later than with an interval of a third per request, and a
 * request shorter than a sixth of the lease is never renewed. The timer stops at the first tick that
 * finds nothing running, and does not keep the process alive.
 */
export class LeaseRenewals<C extends RunningClaim> {
  private readonly running = new Set<C>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticks = 0;

  constructor(
    private readonly leaseMs: number,
    private readonly renew: (claim: C) => void,
  ) {}

  /** Renew `claim` while it runs, until {@link stop}. */
  start(claim: C): void {
    claim.tick = this.ticks;
    this.running.add(claim);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.onTick(), this.leaseMs / 6);
      this.timer.unref?.();
    }
  }

  stop(claim: C): void {
    this.running.delete(claim);
  }

  private onTick(): void {
    this.ticks++;
    if (this.running.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const claim of this.running) {
      if (this.ticks - claim.tick >= 2) {
        claim.tick = this.ticks;
        this.renew(claim);
      }
    }
  }
}
