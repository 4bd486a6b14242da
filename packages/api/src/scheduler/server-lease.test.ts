import type { Job, JobId, LeasedJob, Leases } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { ServerLease } from './server-lease.js';

const entry = (id: string, fence: number): LeasedJob => ({
  job: { id: id as JobId } as Job,
  lease: { serverId: 'server-1', fence },
});

/** A lease over a store whose claim answers when the test says so. */
function leaseWithClaim() {
  let answer: (held: readonly LeasedJob[]) => void = () => {};
  const store = {
    claimActiveJobs: () =>
      new Promise<readonly LeasedJob[]>((resolve) => {
        answer = resolve;
      }),
  } as unknown as Leases;
  const lease = new ServerLease({
    store,
    clock: { nowMs: () => Date.now() } as never,
    logger: new MemoryLogger(),
    options: { serverId: 'server-1', host: 'h', ttlMs: 15_000, heartbeatMs: 5_000, exclusive: true },
  });
  return { lease, answer: (held: readonly LeasedJob[]) => answer(held) };
}

describe('ServerLease.claim', () => {
  it('keeps a job held while the claim ran, which its read may predate (an admission that rode an enqueue)', async () => {
    const { lease, answer } = leaseWithClaim();
    const claiming = lease.claim();
    lease.hold(entry('job_ridden', 7));
    answer([entry('job_old', 3)]);
    const held = await claiming;
    expect(held.map((e) => e.job.id)).toEqual(['job_old', 'job_ridden']);
    expect(lease.fenceOf('job_ridden' as JobId)).toEqual({ serverId: 'server-1', fence: 7 });
    expect(lease.holds('job_old' as JobId)).toBe(true);
  });

  it('forgets a job held before the claim that the claim no longer finds, and counts a found one once', async () => {
    const { lease, answer } = leaseWithClaim();
    lease.hold(entry('job_gone', 1));
    const first = lease.claim();
    answer([]);
    expect(await first).toEqual([]);
    expect(lease.holds('job_gone' as JobId)).toBe(false);
    const second = lease.claim();
    lease.hold(entry('job_a', 2));
    answer([entry('job_a', 2)]);
    expect((await second).map((e) => e.job.id)).toEqual(['job_a']);
  });
});

describe('ServerLease.surelyHeld', () => {
  /** A lease shared with other servers (or alone, `exclusive`), on a clock the test moves. */
  function leaseAt(exclusive: boolean) {
    let now = 1_000_000;
    const store = {
      renewServerLease: async () => {},
      claimActiveJobs: async () => [],
    } as unknown as Leases;
    const lease = new ServerLease({
      store,
      clock: { nowMs: () => now } as never,
      logger: new MemoryLogger(),
      options: { serverId: 'server-1', host: 'h', ttlMs: 15_000, heartbeatMs: 5_000, exclusive },
    });
    return { lease, advance: (ms: number) => (now += ms) };
  }

  it('holds for half the TTL after a renewal when shared, never before the first one', async () => {
    const { lease, advance } = leaseAt(false);
    expect(lease.surelyHeld).toBe(false);
    await lease.renewIfDue();
    expect(lease.surelyHeld).toBe(true);
    advance(7_499);
    expect(lease.surelyHeld).toBe(true);
    advance(1);
    // Stalled past half the TTL: another server may claim its jobs soon, or already did.
    expect(lease.surelyHeld).toBe(false);
    advance(1);
    expect(lease.surelyHeld).toBe(false);
    await lease.renewIfDue();
    expect(lease.surelyHeld).toBe(true);
  });

  it('always holds once an exclusive server took every job over, however long it stalls', async () => {
    const { lease, advance } = leaseAt(true);
    await lease.renewIfDue();
    await lease.claim();
    advance(60_000);
    expect(lease.surelyHeld).toBe(true);
  });
});
