/**
 * At most `max` open claim transactions per owner; further claims of that owner wait their turn, in
 * order. One owner's burst of keyed writes then holds at most `max` of the pool's connections and
 * queues for the rest here, not in the pool's queue, where every other request would wait behind it.
 */
export function ownerShares(max: number) {
  const byOwner = new Map<string, { held: number; readonly waiting: Array<() => void> }>();
  return {
    enter(owner: string): Promise<void> | undefined {
      let share = byOwner.get(owner);
      if (share === undefined) {
        share = { held: 0, waiting: [] };
        byOwner.set(owner, share);
      }
      if (share.held < max) {
        share.held++;
        return undefined;
      }
      const { waiting } = share;
      return new Promise((resolve) => waiting.push(resolve));
    },
    /** Hands the slot to the owner's next waiting claim, or frees it. */
    leave(owner: string): void {
      const share = byOwner.get(owner);
      if (share === undefined) return;
      const next = share.waiting.shift();
      if (next !== undefined) {
        next();
        return;
      }
      share.held--;
      if (share.held === 0) byOwner.delete(owner);
    },
  };
}
