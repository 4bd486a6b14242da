import type { ClaimedJobs, Job, JobId, LeasedJob, Leases } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { ServerLease, TAKEOVER_LOGGED_JOB_IDS } from './server-lease.js';

const entry = (id: string, fence: number): LeasedJob => ({
  job: { id: id as JobId } as Job,
  lease: { serverId: 'server-1', fence },
});

/** A lease over a store whose claim answers when the test says so. */
function leaseWithClaim() {
  let answer: (held: readonly LeasedJob[]) => void = () => {};
  const store = {
    claimActiveJobs: () =>
      new Promise<ClaimedJobs>((resolve) => {
        answer = (held) => resolve({ held, takenOver: [] });
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
      claimActiveJobs: async (): Promise<ClaimedJobs> => ({ held: [], takenOver: [] }),
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

describe('ServerLease.claim reporting a takeover', () => {
  /** A lease whose store answers each claim with the next of `answers`. */
  function leaseAnswering(answers: ClaimedJobs[]) {
    const logger = new MemoryLogger();
    const counted: number[] = [];
    const store = { claimActiveJobs: async () => answers.shift() } as unknown as Leases;
    const lease = new ServerLease({
      store,
      clock: { nowMs: () => 0 } as never,
      logger,
      options: { serverId: 'server-1', host: 'h', ttlMs: 15_000, heartbeatMs: 5_000 },
      onTakeover: (count) => counted.push(count),
    });
    return { lease, logger, counted };
  }
  const ids = (count: number) => Array.from({ length: count }, (_, i) => `job_${String(i).padStart(3, '0')}`);

  it('logs one line naming the count, the previous holders once each and the first job ids', async () => {
    const taken = ids(TAKEOVER_LOGGED_JOB_IDS + 5);
    const fromServer = (i: number) => (i % 3 === 0 ? 'srv_dead' : i % 3 === 1 ? 'srv_gone' : null);
    const { lease, logger, counted } = leaseAnswering([
      {
        held: taken.map((id) => entry(id, 2)),
        takenOver: taken.map((id, i) => ({ jobId: id as JobId, fromServer: fromServer(i) })),
      },
    ]);
    await lease.claim();
    expect(logger.entries).toEqual([
      {
        level: 'info',
        message: 'took over jobs',
        fields: {
          count: TAKEOVER_LOGGED_JOB_IDS + 5,
          fromServers: ['srv_dead', 'srv_gone'],
          jobIds: taken.slice(0, TAKEOVER_LOGGED_JOB_IDS),
        },
      },
    ]);
    expect(counted).toEqual([TAKEOVER_LOGGED_JOB_IDS + 5]);
  });

  it('logs nothing for a claim that took nothing over, even while it holds jobs', async () => {
    const { lease, logger, counted } = leaseAnswering([
      { held: [], takenOver: [] },
      { held: [entry('job_a', 1)], takenOver: [] },
    ]);
    await lease.claim();
    await lease.claim();
    expect(logger.entries).toEqual([]);
    expect(counted).toEqual([]);
  });
});
