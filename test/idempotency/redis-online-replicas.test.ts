/**
 * The claim script's count of a master's replicas online and acknowledging (`INFO replication`, as
 * Redis 7 writes it), run in a real Redis on texts of that form: the completion waits for replicas
 * only when the count says a WAIT can be answered.
 */
import { fc, test } from '@fast-check/vitest';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ONLINE_REPLICAS_FUNCTION } from '../../src/idempotency/stores/redis/scripts.js';
import { REDIS_URL, serviceAvailable } from '../support/services.js';

const available = await serviceAvailable('Redis');
const redis = available ? new Redis(REDIS_URL) : undefined;
afterAll(() => redis?.quit());

const MAX_LAG = 10;
const counting = `${ONLINE_REPLICAS_FUNCTION.replace('MAX_LAG', String(MAX_LAG))}
return onlineReplicas(ARGV[1])`;
const count = async (info: string) => Number(await redis!.eval(counting, 0, info));

interface Replica {
  readonly state: 'online' | 'wait_bgsave' | 'send_bulk';
  readonly offset: number;
  readonly lag: number;
}

/** `INFO replication` of a master with these replicas, in Redis 7's format. */
function infoText(replicas: readonly Replica[]): string {
  const lines = [
    '# Replication',
    'role:master',
    `connected_slaves:${replicas.length}`,
    ...replicas.map(
      (r, i) => `slave${i}:ip=127.0.0.1,port=${7_000 + i},state=${r.state},offset=${r.offset},lag=${r.lag}`,
    ),
    'master_failover_state:no-failover',
    'master_repl_offset:1002015',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

describe.skipIf(!available)("the claim script's count of replicas online", () => {
  it('counts a replica whose acknowledgement came in the same instant as lag -1', async () => {
    // Seen at the start of a second on a loaded machine: Redis stamps the acknowledgement with its
    // cached clock and subtracts it from time(), which still read the second before. Before, the
    // replica was not counted, and the completion failed with NotReplicatedError.
    expect(await count(infoText([{ state: 'online', offset: 1_002_015, lag: -1 }]))).toBe(1);
  });

  it('counts neither a replica still syncing nor one silent for longer than the bound', async () => {
    const info = infoText([
      { state: 'wait_bgsave', offset: 0, lag: 0 },
      { state: 'online', offset: 14, lag: MAX_LAG + 1 },
      { state: 'online', offset: 14, lag: MAX_LAG },
    ]);
    expect(await count(info)).toBe(1);
  });

  const replica = fc.record({
    state: fc.constantFrom('online', 'wait_bgsave', 'send_bulk'),
    offset: fc.integer({ min: -1, max: 2 ** 40 }),
    lag: fc.integer({ min: -2, max: 3 * MAX_LAG }),
  });
  test.prop([fc.array(replica, { maxLength: 5 })], { numRuns: 60 })(
    'counts exactly the replicas online with a lag of at most the bound',
    async (replicas) => {
      const expected = replicas.filter((r) => r.state === 'online' && r.lag <= MAX_LAG).length;
      expect(await count(infoText(replicas))).toBe(expected);
    },
  );
});
