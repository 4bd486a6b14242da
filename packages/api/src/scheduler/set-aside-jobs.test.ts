import {
  type AdmissionCandidate,
  AdmissionJobError,
  type AdmitArgs,
  admissionJobErrorOf,
  asOwnerId,
  EMPTY_ROUND,
} from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../storage/driver-errors.js';
import { AdmissionPass, type AdmissionPassDeps } from './admission-pass.js';
import { RETRY_BASE_MS, RETRY_CAP_MS } from './retry-backoff.js';
import { SetAsideJobs } from './set-aside-jobs.js';
import type { WakeTimer } from './wake-timer.js';

const candidate = (jobId: string, owner = 'alice'): AdmissionCandidate =>
  ({
    jobId,
    owner: asOwnerId(owner),
    teamId: `team-${owner}`,
    conversationId: `c-${jobId}`,
    seq: 1,
  }) as AdmissionCandidate;

describe('SetAsideJobs', () => {
  it('plans without a failed job until its backoff ends, doubling with each failure', () => {
    const jobs = new SetAsideJobs();
    const all = [candidate('a'), candidate('b')];
    expect(jobs.plannable(all, 0)).toBe(all);
    expect(jobs.failed('a', 1_000)).toBe(1_000 + RETRY_BASE_MS);
    expect(jobs.plannable(all, 1_000).map((c) => c.jobId)).toEqual(['b']);
    expect(jobs.plannable(all, 1_000 + RETRY_BASE_MS - 1).map((c) => c.jobId)).toEqual(['b']);
    expect(jobs.plannable(all, 1_000 + RETRY_BASE_MS).map((c) => c.jobId)).toEqual(['a', 'b']);
    expect(jobs.failed('a', 2_000)).toBe(2_000 + RETRY_BASE_MS * 2);
  });

  it('forgets a job once it is admitted, so a later failure starts from the first backoff', () => {
    const jobs = new SetAsideJobs();
    jobs.failed('a', 0);
    jobs.failed('a', 0);
    jobs.admitted(['a']);
    expect(jobs.size).toBe(0);
    expect(jobs.failed('a', 0)).toBe(RETRY_BASE_MS);
  });

  it('drops a job no pass offered long after its time came (finished elsewhere)', () => {
    const jobs = new SetAsideJobs();
    const until = jobs.failed('gone', 0);
    jobs.plannable([candidate('b')], until + RETRY_CAP_MS * 2);
    expect(jobs.size).toBe(1);
    jobs.plannable([candidate('b')], until + RETRY_CAP_MS * 2 + 1);
    expect(jobs.size).toBe(0);
  });
});

describe('admissionJobErrorOf', () => {
  it('finds the failed job through a store error that wraps it, and copies the driver code', () => {
    const driver = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    const failed = new AdmissionJobError('job-1', 'team-1', driver);
    expect(failed.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    const wrapped = new StorageError('UNIQUE_VIOLATION', 'write failed after 3 attempt(s)', { cause: failed });
    expect(admissionJobErrorOf(wrapped)).toBe(failed);
    expect(admissionJobErrorOf(driver)).toBeNull();
    expect(admissionJobErrorOf('text')).toBeNull();
    expect(admissionJobErrorOf(null)).toBeNull();
  });
});

/** An admission pass whose store fails once with `error`, then plans what it is given. */
function failingOnce(error: unknown) {
  const planned: string[][] = [];
  const wakes: number[] = [];
  const logger = new MemoryLogger();
  let calls = 0;
  let woken = 0;
  const admission = new AdmissionPass({
    store: {
      admit: async (args: AdmitArgs) => {
        calls += 1;
        if (calls === 1) throw error;
        const snapshot = { active: 0, candidates: [candidate('broken'), candidate('fine', 'bob')], round: EMPTY_ROUND };
        planned.push([...args.plan({ ...snapshot, capacity: 8 }).admit]);
        return [];
      },
      nextWaitDeadline: async () => null,
    } as unknown as AdmissionPassDeps['store'],
    catalog: new StaticCatalog(),
    runtimes: { get: () => null },
    clock: { nowMs: () => Date.now() },
    ids: new SequentialIds(),
    logger,
    serverId: 'server-1',
    timer: { wakeAt: (atMs: number) => wakes.push(atMs) } as unknown as WakeTimer,
    wake: () => {
      woken += 1;
    },
  });
  return { admission, planned, wakes, logger, woken: () => woken };
}

describe('AdmissionPass after one job failed', () => {
  it('sets the job aside and admits the others at once, without backing off the whole admission', async () => {
    const t = failingOnce(new AdmissionJobError('broken', 'team-alice', new Error('refused')));
    expect(await t.admission.admit()).toEqual([]);
    expect(t.woken()).toBe(1);
    expect(t.wakes).toHaveLength(1);
    expect(t.logger.entries.map((entry) => entry.fields)).toMatchObject([{ jobId: 'broken', teamId: 'team-alice' }]);
    await t.admission.admit();
    expect(t.planned).toEqual([['fine']]);
  });

  it('backs off as a whole after a failure that names no job', async () => {
    const t = failingOnce(new Error('the database is gone'));
    await t.admission.admit();
    expect(t.woken()).toBe(0);
    expect(t.logger.entries.map((entry) => entry.message)).toEqual(['admission pass failed; retrying']);
    // Backing off: the next pass does not reach the store.
    await t.admission.admit();
    expect(t.planned).toEqual([]);
  });
});
