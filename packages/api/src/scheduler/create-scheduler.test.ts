import { type PublishWindow, TeamEventKind } from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createScheduler, type SchedulerStore } from './create-scheduler.js';

/** A store that only counts passes (admit calls) and how many overlap; `hold` keeps passes open. */
function countingStore() {
  const stats = { passes: 0, concurrent: 0, maxConcurrent: 0, likely: [] as boolean[] };
  /** Called inside each pass's admission, its publish window open (its commit publishing its events). */
  const during: { admit: () => void } = { admit: () => {} };
  /** What each pass's admission returns (the ids of the jobs it admitted, without a lease), and how many wanted a slot. */
  const admits: { ids: string[]; candidates: number; phase: string } = { ids: [], candidates: 0, phase: 'ADMITTING' };
  let gate: Promise<void> | null = null;
  let open = () => {};
  const store = {
    async admit(args: { likelyQueued?: boolean; plan?: (snapshot: object) => unknown; publishing?: PublishWindow }) {
      stats.passes += 1;
      const candidates = Array.from({ length: admits.candidates }, (_, i) => ({
        jobId: `job_c${i}`,
        owner: 'alice',
        teamId: 'team_1',
        conversationId: `conv_${i}`,
        seq: i,
      }));
      args.plan?.({
        active: 0,
        activeByOwner: new Map(),
        candidates,
        round: { rotation: [], served: [] },
        capacity: 8,
      });
      stats.likely.push(args.likelyQueued === true);
      args.publishing?.opened();
      try {
        during.admit();
      } finally {
        args.publishing?.closed();
      }
      stats.concurrent += 1;
      stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.concurrent);
      await gate;
      stats.concurrent -= 1;
      return admits.ids.map((id) => ({ job: { id, phase: admits.phase } }));
    },
    nextWaitDeadline: async () => null,
    renewServerLease: async () => {},
    claimActiveJobs: async () => ({ held: [], takenOver: [] }),
    releaseServerLeases: async () => {},
    findTeams: async () => [],
  } as unknown as SchedulerStore;
  return {
    store,
    stats,
    during,
    admits,
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    release() {
      gate = null;
      open();
    },
  };
}

/** Runs `work` while a woken pass is held open, then lets it finish and waits until idle. */
async function duringPass(
  counting: ReturnType<typeof countingStore>,
  scheduler: ReturnType<typeof build>,
  work: () => void,
): Promise<void> {
  counting.hold();
  scheduler.wake();
  await vi.waitFor(() => expect(counting.stats.concurrent).toBe(1));
  work();
  counting.release();
  await scheduler.idle();
}

function build(store: SchedulerStore) {
  return createScheduler({
    store,
    runtimes: { get: () => null },
    catalog: new StaticCatalog(),
    clock: { nowMs: () => Date.now() },
    ids: new SequentialIds(),
    logger: new MemoryLogger(),
    tools: () => ({ invoke: async () => null }),
    options: { safetyNetMs: 5_000 },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createScheduler', () => {
  it('runs a pass on start, folds the wake-ups of one turn into one pass and never overlaps passes', async () => {
    const counting = countingStore();
    const scheduler = build(counting.store);
    await scheduler.start();
    expect(counting.stats.passes).toBe(1);
    for (let i = 0; i < 50; i += 1) scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.passes).toBe(2);

    // Wake-ups while a pass runs make exactly one more pass after it.
    await duringPass(counting, scheduler, () => {
      for (let i = 0; i < 50; i += 1) scheduler.eventSink.published([{}] as never);
    });
    expect(counting.stats.passes).toBe(4);
    expect(counting.stats.maxConcurrent).toBe(1);
    await scheduler.stop();
  });

  it("starts once its first pass ended, not once the passes that pass's work asks for went quiet", async () => {
    const counting = countingStore();
    const scheduler = build(counting.store);
    // Each pass wakes the scheduler again, 20 times (a backlog of quick jobs, each ending in a pass).
    counting.during.admit = () => {
      if (counting.stats.passes < 20) scheduler.wake();
    };
    await scheduler.start();
    expect(counting.stats.passes).toBe(1);
    await scheduler.idle();
    expect(counting.stats.passes).toBe(20);
    await scheduler.stop();
  });

  it('passes again only when the safety net is due, and never after stop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const counting = countingStore();
    const scheduler = build(counting.store);
    await scheduler.start();
    await scheduler.idle();
    vi.advanceTimersByTime(4_999);
    await scheduler.idle();
    expect(counting.stats.passes).toBe(1);
    vi.advanceTimersByTime(1);
    await scheduler.idle();
    expect(counting.stats.passes).toBe(2);
    await scheduler.stop();
    scheduler.wake();
    vi.advanceTimersByTime(60_000);
    await scheduler.idle();
    expect(counting.stats.passes).toBe(2);
  });

  it('asks for one more admission when another server changes something while a pass runs', async () => {
    const counting = countingStore();
    const scheduler = build(counting.store);
    await scheduler.start();
    await scheduler.idle();
    // Not waiting for a change and no pass running: a remote event needs no admission.
    scheduler.remoteSink.published([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_x' }] as never);
    await scheduler.idle();
    expect(counting.stats.passes).toBe(1);
    // During a pass (which may have just seen a wait begin), it does: one more pass after it.
    await duringPass(counting, scheduler, () => {
      scheduler.remoteSink.published([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_y' }] as never);
    });
    expect(counting.stats.passes).toBe(3);
    await scheduler.stop();
  });

  it("tells admission work is likely after a local change to a job it does not drive, not after its own admission's", async () => {
    const counting = countingStore();
    const scheduler = build(counting.store);
    await scheduler.start();
    await scheduler.idle();
    scheduler.eventSink.published([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_new' }] as never);
    await scheduler.idle();
    scheduler.eventSink.published([{ kind: TeamEventKind.MEMBER_CHANGED, jobId: null }] as never);
    await scheduler.idle();
    // The events an admission's own commit publishes name the jobs it admitted (once: a real
    // admission that admitted something is followed by one that finds nothing).
    counting.during.admit = () => {
      counting.during.admit = () => {};
      scheduler.eventSink.published([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_admitted' }] as never);
    };
    scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.likely).toEqual([false, true, false, false, false]);
    await scheduler.stop();
  });

  it('settles the events of its own admission that name what it admitted, and passes again for any other', async () => {
    const counting = countingStore();
    const scheduler = build(counting.store);
    await scheduler.start();
    await scheduler.idle();
    const publishDuringAdmit = (events: readonly object[]) => {
      counting.during.admit = () => {
        counting.during.admit = () => {};
        scheduler.eventSink.published(events as never);
      };
    };
    counting.admits.ids = ['job_a'];
    counting.admits.candidates = 1;
    publishDuringAdmit([
      { kind: TeamEventKind.JOB_CHANGED, jobId: 'job_a' },
      { kind: TeamEventKind.MEMBER_CHANGED, jobId: null },
      { kind: TeamEventKind.MESSAGE_DELIVERED, jobId: 'job_a' },
    ]);
    scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.passes).toBe(2);
    // A job it did not admit (a receipt for a job it failed, say) may need a slot: one more pass.
    publishDuringAdmit([
      { kind: TeamEventKind.JOB_CHANGED, jobId: 'job_a' },
      { kind: TeamEventKind.JOB_CHANGED, jobId: 'job_receipt' },
    ]);
    scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.passes).toBe(4);
    // A job left waiting (the planner's round, slots full): the next pass admits it or finds the slots full.
    counting.admits.candidates = 2;
    publishDuringAdmit([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_a' }]);
    scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.passes).toBe(6);
    counting.admits.candidates = 1;
    // A job the admission ended instead (its agent gone) lets the next of its conversation in.
    counting.admits.phase = 'FAILED';
    publishDuringAdmit([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_a' }]);
    scheduler.wake();
    await scheduler.idle();
    expect(counting.stats.passes).toBe(8);
    counting.admits.phase = 'ADMITTING';
    // A commit that is not the admission's, heard while it runs, wakes as before.
    await duringPass(counting, scheduler, () => {
      scheduler.eventSink.published([{ kind: TeamEventKind.JOB_CHANGED, jobId: 'job_a' }] as never);
    });
    expect(counting.stats.passes).toBe(10);
    await scheduler.stop();
  });
});
