import {
  asJobId,
  asOwnerId,
  asTeamId,
  type CommittedRows,
  type Job,
  type JobId,
  JobPhase,
  type JobView,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { describe, expect, it, vi } from 'vitest';
import { createEventHub } from '../events/event-hub.js';
import { JobWatches, REMOTE_SETTLE_MS } from './job-watch.js';

const JOB = asJobId('job_1');
const TEAM = asTeamId('team_1');

// Only the fields a watch reads; the rest of a job does not matter here.
const job = (phase: JobPhase, extra: Record<string, unknown> = {}) =>
  ({ id: JOB, teamId: TEAM, phase, ...extra }) as unknown as Job;

const event = (kind: TeamEvent['kind'], jobId: JobId | null = JOB): TeamEvent => ({
  teamId: TEAM,
  owner: asOwnerId('alice'),
  seq: 1,
  kind,
  jobId,
  recordId: null,
  memberId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

const rowsWith = (row: Job): CommittedRows => ({
  jobs: new Map([[row.id, row]]),
  records: new Map(),
  teams: new Map(),
  members: new Map(),
});

/** Lets the watch's pending reads resume (promise callbacks only; no timer runs). */
async function settled(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

/** A watch set on a real event hub whose reads the test answers by hand. */
function setup() {
  const hub = createEventHub();
  const reads: ((job: JobView | null) => void)[] = [];
  const load = vi.fn(
    () =>
      new Promise<JobView | null>((resolve) => {
        reads.push(resolve);
      }),
  );
  const watches = new JobWatches(hub, load);
  const ended: (JobView | null)[] = [];
  const follow = () => watches.follow(JOB, (last) => ended.push(last));
  return { hub, watches, load, reads, ended, follow };
}

describe('JobWatches', () => {
  it('takes a local commit’s row at once, without a read, and ends on its terminal status', () => {
    const { hub, watches, load, ended, follow } = setup();
    const f = follow();
    f.start(job(JobPhase.QUEUED));
    hub.published([event(TeamEventKind.JOB_CHANGED)], rowsWith(job(JobPhase.RUNNING, { input: { big: 1 } })));
    expect(f.job.phase).toBe(JobPhase.RUNNING);
    // The frozen input is not kept for the life of the stream.
    expect('input' in f.job).toBe(false);
    expect(ended).toEqual([]);
    hub.published([event(TeamEventKind.JOB_CHANGED)], rowsWith(job(JobPhase.COMPLETED)));
    expect(ended).toEqual([expect.objectContaining({ phase: JobPhase.COMPLETED })]);
    expect(load).not.toHaveBeenCalled();
    // The ended watch is dropped, and with the last one the hub listener.
    expect(watches.size).toBe(0);
    expect(hub.listening).toBe(0);
  });

  it('ignores other jobs’ changes and events of other kinds', () => {
    const { hub, load, ended, follow } = setup();
    follow().start(job(JobPhase.RUNNING));
    hub.published([event(TeamEventKind.JOB_CHANGED, asJobId('job_2')), event(TeamEventKind.RECORD_APPENDED, null)]);
    expect(load).not.toHaveBeenCalled();
    expect(ended).toEqual([]);
  });

  it('reads another server’s change back and ends a little later, so its last deltas still arrive', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { hub, load, reads, ended, follow } = setup();
      const f = follow();
      f.start(job(JobPhase.RUNNING));
      hub.published([event(TeamEventKind.JOB_CHANGED)]);
      // A second change during the read is read after it, not alongside it.
      hub.published([event(TeamEventKind.JOB_CHANGED)]);
      expect(load).toHaveBeenCalledTimes(1);
      reads[0]?.(job(JobPhase.RUNNING));
      await settled();
      expect(load).toHaveBeenCalledTimes(2);
      reads[1]?.(job(JobPhase.FAILED));
      await settled();
      expect(f.job.phase).toBe(JobPhase.FAILED);
      expect(ended).toEqual([]);
      vi.advanceTimersByTime(REMOTE_SETTLE_MS - 1);
      expect(ended).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(ended).toEqual([expect.objectContaining({ phase: JobPhase.FAILED })]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends a job already finished at its start, and one that is gone (its team deleted) with nothing', async () => {
    const { hub, reads, ended, follow } = setup();
    follow().start(job(JobPhase.COMPLETED));
    expect(ended).toEqual([expect.objectContaining({ phase: JobPhase.COMPLETED })]);
    const f = follow();
    f.start(job(JobPhase.WAITING_INPUT));
    hub.published([event(TeamEventKind.TEAM_CHANGED, null)]);
    reads[0]?.(null);
    await settled();
    expect(ended).toHaveLength(2);
    expect(ended[1]).toBeNull();
  });

  it('reads back a change committed while a subscription read the job, and ends a late joiner at once', async () => {
    const { hub, reads, ended, follow } = setup();
    const first = follow();
    // The change commits between the subscription's listen and the end of its own read.
    hub.published([event(TeamEventKind.JOB_CHANGED)]);
    first.start(job(JobPhase.RUNNING));
    reads[0]?.(job(JobPhase.CANCELLED));
    await settled();
    expect(first.job.phase).toBe(JobPhase.CANCELLED);
    // A subscription joining while the end settles is ended by its start, whatever it read.
    const second = follow();
    second.start(job(JobPhase.RUNNING));
    expect(ended).toEqual([expect.objectContaining({ phase: JobPhase.CANCELLED })]);
    // The first one once the settling time is over.
    await vi.waitFor(() => expect(ended).toHaveLength(2));
  });

  it('stops listening when the last follower leaves, and never calls a follower that left', () => {
    const { hub, watches, ended, follow } = setup();
    const a = follow();
    const b = follow();
    a.start(job(JobPhase.RUNNING));
    b.start(job(JobPhase.RUNNING));
    expect(hub.listening).toBe(1);
    a.leave();
    a.leave();
    expect(hub.listening).toBe(1);
    hub.published([event(TeamEventKind.JOB_CHANGED)], rowsWith(job(JobPhase.COMPLETED)));
    expect(ended).toHaveLength(1);
    b.leave();
    expect(watches.size).toBe(0);
    expect(hub.listening).toBe(0);
  });
});
