import {
  CANCELLED_AFTER_START,
  CANCELLED_BEFORE_START,
  DEFAULT_ADMISSION_POLICY,
  type Job,
  JobPhase,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest, OWNER, waitForPhases } from '../scheduler/scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

/** Sends two requests to one member: the first with `head`, the second queued behind it. */
async function pair(head: string, behind = 'afterwards'): Promise<{ first: Job; second: Job }> {
  const { team, members } = await h.team(['researcher', 'reviewer']);
  const [first] = await h.send(team, members.slice(0, 1), head);
  const [second] = await h.send(team, members.slice(0, 1), behind);
  if (!first || !second) throw new Error('no jobs');
  return { first, second };
}

const one = async (ids: readonly Job['id'][], phases: readonly string[]) => {
  const [job] = await waitForPhases(h, ids, phases);
  if (!job) throw new Error('no job');
  return job;
};

describe('cancelJob in each state', () => {
  it('ends a queued job at once with a record message and a result that says it never started', async () => {
    const { first, second } = await pair('!sleep 60000');
    await one([first.id], [JobPhase.RUNNING]);
    const outcome = await h.core.jobs.cancel(OWNER, second.id);
    expect(outcome.alreadyFinished).toBe(false);
    expect(outcome.job.phase).toBe(JobPhase.CANCELLED);
    expect(outcome.job.result).toEqual({ text: CANCELLED_BEFORE_START, truncated: false });
    const records = await h.store.recentRecords(second.teamId, 10);
    expect(records.filter((r) => r.jobId === second.id).map((r) => r.kind)).toEqual(['REQUEST', 'CANCELLED']);
    const runs = await h.database.db
      .selectFrom('runtime_runs')
      .select('run_key')
      .where('job_id', '=', second.id)
      .execute();
    expect(runs).toEqual([]);
    await h.core.jobs.cancel(OWNER, first.id);
  });

  it('moves a running job through CANCELLING to CANCELLED when the runtime confirms, keeping the conversation', async () => {
    const { first, second } = await pair('!sleep 60000');
    await one([first.id], [JobPhase.RUNNING]);
    const outcome = await h.core.jobs.cancel(OWNER, first.id);
    expect(outcome.job.phase).toBe(JobPhase.CANCELLING);
    const cancelled = await one([first.id], [JobPhase.CANCELLED]);
    expect(cancelled.result?.text).toBe(CANCELLED_AFTER_START);
    const conversation = await h.store.listConversation(first.conversationId, { first: 10, afterSeq: null });
    expect(conversation.items.map((m) => m.text)).toContain('!sleep 60000');
    // The conversation is free again: the job behind it runs.
    expect((await one([second.id], [JobPhase.COMPLETED])).result?.text).toBe('m0: afterwards');
    expect(await h.store.countJobs(first.teamId)).toEqual({ requests: 2, receipts: 0 });
  });

  it('ends a job waiting for input at once and releases its conversation', async () => {
    const { first, second } = await pair('!ask Which one?');
    await one([first.id], [JobPhase.WAITING_INPUT]);
    expect((await h.job(second.id)).phase).toBe(JobPhase.QUEUED);
    const outcome = await h.core.jobs.cancel(OWNER, first.id);
    expect(outcome.job.phase).toBe(JobPhase.CANCELLED);
    expect(outcome.job.pendingInput).toBeNull();
    expect((await h.core.jobs.inbox(OWNER, {})).edges).toEqual([]);
    expect((await one([second.id], [JobPhase.COMPLETED])).phase).toBe(JobPhase.COMPLETED);
  });

  it('ends an answered job that waits for a slot at once, never submitting the answer', async () => {
    // The owner's share of the slots (8 − 2 kept for others): its answered job must wait.
    const { activeJobs, reservedForOthers } = DEFAULT_ADMISSION_POLICY;
    const sleepers = await h.team(Array(activeJobs - reservedForOthers).fill('researcher'));
    const { first } = await pair('!ask Which one?');
    await one([first.id], [JobPhase.WAITING_INPUT]);
    const running = await h.send(sleepers.team, sleepers.members, '!sleep 60000');
    await waitForPhases(
      h,
      running.map((j) => j.id),
      [JobPhase.RUNNING],
    );
    await h.core.jobs.respond(OWNER, { jobId: first.id, response: 'that one', clientRequestId: 'a' });
    const outcome = await h.core.jobs.cancel(OWNER, first.id);
    expect(outcome.job.phase).toBe(JobPhase.CANCELLED);
    const runs = await h.database.db
      .selectFrom('runtime_runs')
      .select('run_key')
      .where('job_id', '=', first.id)
      .execute();
    expect(runs).toHaveLength(1);
    for (const job of running) await h.core.jobs.cancel(OWNER, job.id);
  });

  it('changes nothing on a finished job and says so', async () => {
    const { first } = await pair('quick');
    const done = await one([first.id], [JobPhase.COMPLETED]);
    const outcome = await h.core.jobs.cancel(OWNER, first.id);
    expect(outcome).toEqual({ job: done, alreadyFinished: true });
  });
});
