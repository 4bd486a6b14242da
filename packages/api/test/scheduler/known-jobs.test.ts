import {
  asJobId,
  asOwnerId,
  asTeamId,
  type CommittedRows,
  type Job,
  type JobId,
  JobPhase,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { KNOWN_JOBS_MAX, KnownJobs } from '../../src/scheduler/known-jobs.js';
import {
  closeHarnesses,
  countJobReads,
  OWNER,
  openHarness,
  removeTempDirs,
  waitForPhases,
  wrapRuntime,
} from './scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

const TEAM = asTeamId('team_known');

function event(kind: TeamEventKind, jobId: JobId | null, seq = 1): TeamEvent {
  return {
    teamId: TEAM,
    owner: asOwnerId('alice'),
    seq,
    kind,
    jobId,
    recordId: null,
    memberId: null,
    createdAt: '2026-12-05T00:00:00.000Z',
  };
}

/** A job with only what `KnownJobs` looks at filled in (its id and phase). */
function job(id: string, phase: JobPhase): Job {
  return { id: asJobId(id), teamId: TEAM, phase } as unknown as Job;
}

function rows(...jobs: Job[]): CommittedRows {
  return { jobs: new Map(jobs.map((j) => [j.id, j])), records: new Map(), teams: new Map(), members: new Map() };
}

describe('KnownJobs', () => {
  it('keeps an active job as its commit stored it, the last commit winning', () => {
    const known = new KnownJobs();
    const admitting = job('j1', JobPhase.ADMITTING);
    known.heard([event(TeamEventKind.JOB_CHANGED, admitting.id)], rows(admitting));
    expect(known.get(admitting.id)).toBe(admitting);
    const cancelling = job('j1', JobPhase.CANCELLING);
    known.heard([event(TeamEventKind.JOB_CHANGED, cancelling.id, 2)], rows(cancelling));
    expect(known.get(admitting.id)).toBe(cancelling);
  });

  it('drops a job an event names that its commit did not note, or that left the active phases', () => {
    const known = new KnownJobs();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => job(id, JobPhase.RUNNING)) as [Job, Job, Job, Job];
    known.heard(
      [a, b, c, d].map((j) => event(TeamEventKind.JOB_CHANGED, j.id)),
      rows(a, b, c, d),
    );
    expect(known.size).toBe(4);
    // A JOB_CHANGED without its row (stored otherwise than given), no rows at all, another kind
    // of event naming a job its commit did not note.
    known.heard([event(TeamEventKind.JOB_CHANGED, a.id)], rows());
    known.heard([event(TeamEventKind.JOB_CHANGED, b.id)], undefined);
    known.heard([event(TeamEventKind.MESSAGE_DELIVERED, c.id)], rows());
    expect([a, b, c].map((j) => known.get(j.id))).toEqual([undefined, undefined, undefined]);
    // Another kind naming a job its commit noted (a delivery into the turn it admitted) keeps it.
    const admitted = job('d', JobPhase.ADMITTING);
    known.heard([event(TeamEventKind.JOB_CHANGED, d.id), event(TeamEventKind.MESSAGE_DELIVERED, d.id)], rows(admitted));
    expect(known.get(d.id)).toBe(admitted);
    const done = job('e', JobPhase.COMPLETED);
    const queued = job('q', JobPhase.QUEUED);
    known.heard(
      [event(TeamEventKind.JOB_CHANGED, done.id), event(TeamEventKind.JOB_CHANGED, queued.id)],
      rows(done, queued),
    );
    expect(known.get(done.id)).toBeUndefined();
    expect(known.get(queued.id)).toBeUndefined();
  });

  it('forgets a job whose step failed, and ignores events naming no job', () => {
    const known = new KnownJobs();
    const a = job('a', JobPhase.RESUMING);
    known.heard([event(TeamEventKind.JOB_CHANGED, a.id), event(TeamEventKind.TEAM_CHANGED, null)], rows(a));
    expect(known.get(a.id)).toBe(a);
    known.drop(a.id);
    expect(known.get(a.id)).toBeUndefined();
  });

  it.each([
    [KNOWN_JOBS_MAX - 1, KNOWN_JOBS_MAX - 1, true],
    [KNOWN_JOBS_MAX, KNOWN_JOBS_MAX, true],
    [KNOWN_JOBS_MAX + 1, KNOWN_JOBS_MAX, false],
  ])('noting %i jobs keeps %i, the first kept: %s', (count, kept, firstKept) => {
    const known = new KnownJobs();
    const jobs = Array.from({ length: count }, (_, i) => job(`j${i}`, JobPhase.RUNNING));
    for (const j of jobs) known.heard([event(TeamEventKind.JOB_CHANGED, j.id)], rows(j));
    expect(known.size).toBe(kept);
    expect(known.get(asJobId('j0')) !== undefined).toBe(firstKept);
    expect(known.get(asJobId(`j${count - 1}`))).toBeDefined();
  });
});

describe('a job step on SQLite (one server per file)', () => {
  it('runs a turn that settles after its start without reading its job back', async () => {
    // A grace far longer than the turn: its start is acknowledged with its outcome, by the step
    // the `settled` notice asks for, which once read the job the admission had stored.
    const h = await openHarness({ scheduler: { ackGraceMs: 60_000 } });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const watched: JobId[] = [];
    const counter = countJobReads(h.store, () => watched);
    const [sent] = await h.send(team, members.slice(0, 1), '!sleep 50');
    if (!sent) throw new Error('no job');
    watched.push(sent.id);
    await h.scheduler.idle();
    const reads = counter.reads();
    vi.restoreAllMocks();
    const done = await h.job(sent.id);
    expect(done.phase).toBe(JobPhase.COMPLETED);
    expect(done.runId).not.toBeNull();
    expect(reads).toBe(0);
    await h.close();
  });

  it('confirms a cancel that lands while the start is held back, from the row the cancel stored', async () => {
    const starts: string[] = [];
    const h = await openHarness({
      scheduler: { ackGraceMs: 60_000 },
      wrap: (runtime) =>
        wrapRuntime(runtime, {
          start: (args) => {
            starts.push(args.runKey);
            return runtime.start(args);
          },
        }),
    });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [sent] = await h.send(team, members.slice(0, 1), '!sleep 600000');
    if (!sent) throw new Error('no job');
    // Started, its acknowledgement held back: still ADMITTING in the database.
    await vi.waitFor(() => expect(starts).toHaveLength(1), { timeout: 5_000 });
    expect((await h.job(sent.id)).phase).toBe(JobPhase.ADMITTING);
    const watched: JobId[] = [];
    const counter = countJobReads(h.store, () => watched);
    const { job: cancelling } = await h.core.jobs.cancel(OWNER, sent.id);
    expect(cancelling.phase).toBe(JobPhase.CANCELLING);
    watched.push(sent.id);
    // The cancel's step drops the held-back step; nothing else waits once it is confirmed.
    await h.scheduler.idle();
    const reads = counter.reads();
    vi.restoreAllMocks();
    expect(reads).toBe(0);
    const [cancelled] = await waitForPhases(h, [sent.id], [JobPhase.CANCELLED], 5_000);
    expect(cancelled?.runId).not.toBeNull();
    // The run the first step started is the one stopped: every start used the job's one key.
    expect(new Set(starts)).toEqual(new Set([sent.id]));
    const runs = await h.database.db
      .selectFrom('runtime_runs')
      .select(['run_key', 'state'])
      .where('job_id', '=', sent.id)
      .execute();
    expect(runs).toEqual([{ run_key: sent.id, state: 'cancelled' }]);
    await h.close();
  });
});
