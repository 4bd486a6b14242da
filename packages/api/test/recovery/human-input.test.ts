import { DEFAULT_ADMISSION_POLICY, ErrorCode, type Job, type JobId, JobPhase, utf8ByteLength } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest, OWNER, waitFor, waitForPhases } from '../scheduler/scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

let answers = 0;
const answer = (job: Job, response: unknown, extra: { clientRequestId?: string; inputRequestId?: string } = {}) =>
  h.core.jobs.respond(OWNER, {
    jobId: job.id,
    response,
    clientRequestId: extra.clientRequestId ?? `answer-${++answers}`,
    inputRequestId: extra.inputRequestId ?? null,
  });

async function asked(text: string, agents = ['researcher', 'reviewer']): Promise<Job> {
  const { team, members } = await h.team(agents);
  const [job] = await h.send(team, members.slice(0, 1), text);
  if (!job) throw new Error('no job');
  const [waiting] = await waitForPhases(h, [job.id], [JobPhase.WAITING_INPUT]);
  if (!waiting) throw new Error('not waiting');
  return waiting;
}

async function finished(id: JobId): Promise<Job> {
  const [done] = await waitForPhases(h, [id], [JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.CANCELLED]);
  if (!done) throw new Error('not finished');
  return done;
}

async function refusedWith(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'accepted';
}

describe('answering a clarification', () => {
  it("resumes the job with the answer and ends with the continued run's answer", async () => {
    const job = await asked('!ask Which region?');
    expect(job.pendingInput).toMatchObject({ kind: 'CLARIFICATION', question: 'Which region?' });
    const resumed = await answer(job, '  EU  ', { inputRequestId: job.pendingInput?.requestId });
    expect(resumed.phase).toBe(JobPhase.ANSWERED);
    const done = await finished(job.id);
    expect(done.phase).toBe(JobPhase.COMPLETED);
    expect(done.result?.text).toBe('answered: EU');
    const conversation = await h.store.listConversation(job.conversationId, { first: 50, afterSeq: null });
    const human = conversation.items.filter((m) => m.role === 'USER').map((m) => m.text);
    // The answer reaches the member as a human message that names the question it answers.
    expect(human).toEqual(['!ask Which region?', 'Answer to your question "Which region?":\nEU']);
  });

  it('runs two rounds of questions on one job', async () => {
    const job = await asked('!ask First question?');
    await answer(job, '!ask Second question?');
    const [again] = await waitForPhases(h, [job.id], [JobPhase.WAITING_INPUT]);
    const second = await waitFor(
      async () =>
        (await h.job(job.id)).pendingInput?.requestId !== job.pendingInput?.requestId ? h.job(job.id) : null,
      'the second question',
    );
    expect(again?.phase).toBe(JobPhase.WAITING_INPUT);
    expect(second.pendingInput).toMatchObject({ kind: 'CLARIFICATION', question: 'Second question?' });
    // An answer for the first question, sent by a client that did not see the second one.
    expect(await refusedWith(answer(second, 'late', { inputRequestId: job.pendingInput?.requestId }))).toBe(
      ErrorCode.INPUT_CHANGED,
    );
    await answer(second, 'final', { inputRequestId: second.pendingInput?.requestId });
    const done = await finished(job.id);
    expect(done.result?.text).toBe('answered: final');
  });

  it('accepts CJK and emoji answers and the 8,000-byte boundary, refusing 8,001 bytes with nothing stored', async () => {
    const job = await asked('!ask 何色ですか?');
    const b8001 = `${'😀'.repeat(1999)}xxxxx`;
    expect(utf8ByteLength(b8001)).toBe(8001);
    expect(await refusedWith(answer(job, b8001))).toBe(ErrorCode.INVALID_RESPONSE);
    expect(await refusedWith(answer(job, 'x\ud800'))).toBe(ErrorCode.INVALID_RESPONSE);
    expect(await refusedWith(answer(job, { colour: 'blue' }))).toBe(ErrorCode.INVALID_RESPONSE);
    expect(await refusedWith(answer(job, '   '))).toBe(ErrorCode.INVALID_RESPONSE);
    expect(await h.job(job.id)).toEqual(job);
    const b8000 = `青い😀${'😀'.repeat(1997)}xx`;
    expect(utf8ByteLength(b8000)).toBe(8000);
    await answer(job, b8000);
    expect((await finished(job.id)).result?.text.startsWith('answered: 青い😀')).toBe(true);
  });

  it('is idempotent by clientRequestId: the same answer returns the job after it moved on, another conflicts', async () => {
    const job = await asked('!ask Which region?');
    await answer(job, 'EU', { clientRequestId: 'same-key' });
    const done = await finished(job.id);
    const replay = await answer(job, 'EU', { clientRequestId: 'same-key' });
    expect(replay).toEqual(done);
    expect(await refusedWith(answer(job, 'US', { clientRequestId: 'same-key' }))).toBe(ErrorCode.IDEMPOTENCY_CONFLICT);
    const runs = await h.database.db
      .selectFrom('runtime_runs')
      .select('run_key')
      .where('job_id', '=', job.id)
      .execute();
    expect(runs).toHaveLength(2);
  });

  it('answers NOT_WAITING_INPUT for a job that does not wait and NOT_FOUND for another owner', async () => {
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'plain work');
    if (!job) throw new Error('no job');
    const done = await finished(job.id);
    expect(await refusedWith(answer(done, 'hello'))).toBe(ErrorCode.NOT_WAITING_INPUT);
    const waiting = await asked('!ask Who?');
    const stranger = h.core.jobs.respond('mallory' as typeof OWNER, {
      jobId: waiting.id,
      response: 'me',
      clientRequestId: 'x',
    });
    expect(await refusedWith(stranger)).toBe(ErrorCode.NOT_FOUND);
  });
});

describe('answering an interrupt', () => {
  it('takes any JSON value and resumes with it; never answers automatically', async () => {
    const job = await asked('!interrupt {"approve": "deploy"}');
    expect(job.pendingInput).toMatchObject({ kind: 'INTERRUPT', payload: { approve: 'deploy' } });
    // Left alone it stays waiting: nothing answers an interrupt but a person.
    h.scheduler.wake();
    await h.scheduler.idle();
    expect((await h.job(job.id)).phase).toBe(JobPhase.WAITING_INPUT);
    const nested = { a: [{ b: 'ok\udc00' }] };
    expect(await refusedWith(answer(job, nested))).toBe(ErrorCode.INVALID_RESPONSE);
    expect(await refusedWith(answer(job, { p: 'x'.repeat(8001 - 8) }))).toBe(ErrorCode.INVALID_RESPONSE);
    await answer(job, { p: 'x'.repeat(8000 - 8) });
    const done = await finished(job.id);
    expect(done.result?.text.startsWith('resumed: {"p":"xxx')).toBe(true);
  });

  it('accepts a plain string and a number as interrupt responses', async () => {
    const one = await asked('!interrupt {"q": 1}');
    await answer(one, 'approve');
    expect((await finished(one.id)).result?.text).toBe('resumed: "approve"');
    const two = await asked('!interrupt {"q": 2}');
    await answer(two, 42);
    expect((await finished(two.id)).result?.text).toBe('resumed: 42');
  });
});

describe('waiting jobs and the slots', () => {
  it('admits nothing new into a waiting conversation, holds no slot, and runs the owner share of slots meanwhile', async () => {
    // One owner holds at most 8 − 2 slots by default (2 kept for other owners).
    const SHARE = DEFAULT_ADMISSION_POLICY.activeJobs - DEFAULT_ADMISSION_POLICY.reservedForOthers;
    const blocked = await asked('!ask Hold on?');
    const [teamA, teamB] = [await h.team(Array(8).fill('researcher')), await h.team(Array(8).fill('researcher'))];
    const blockedTeam = at(await h.store.findTeams([blocked.teamId]), 0);
    const blockedMember = (await h.core.teams.members([blocked.teamId])).filter((m) => m.id === blocked.memberId);
    const [next] = await h.send(blockedTeam, blockedMember, 'queued behind the question');
    if (!next) throw new Error('no job');
    // A control job sent after it into an idle conversation finishes: passes ran, and skipped it.
    const control = at(await h.send(teamA.team, teamA.members.slice(7), 'control'), 0);
    expect((await finished(control.id)).phase).toBe(JobPhase.COMPLETED);
    expect((await h.job(next.id)).phase).toBe(JobPhase.QUEUED);
    const sleepers = [
      ...(await h.send(teamA.team, teamA.members.slice(0, SHARE / 2), '!sleep 60000')),
      ...(await h.send(teamB.team, teamB.members.slice(0, SHARE / 2), '!sleep 60000')),
    ];
    await waitForPhases(
      h,
      sleepers.map((j) => j.id),
      [JobPhase.RUNNING],
    );
    expect(await h.store.listActiveJobs()).toHaveLength(SHARE);
    expect((await h.job(next.id)).phase).toBe(JobPhase.QUEUED);
    expect((await h.job(blocked.id)).phase).toBe(JobPhase.WAITING_INPUT);
    // Answering takes a slot again only when one is free: cancel a sleeper, then the answer runs.
    // The answer is accepted at once but waits for a slot: never past the owner's share.
    expect((await answer(blocked, 'go')).phase).toBe(JobPhase.ANSWERED);
    h.scheduler.wake();
    await waitFor(async () => (await h.store.listActiveJobs()).length === SHARE, 'a pass');
    expect((await h.job(blocked.id)).phase).toBe(JobPhase.ANSWERED);
    await h.core.jobs.cancel(OWNER, at(sleepers, 0).id);
    expect((await finished(blocked.id)).result?.text).toBe('answered: go');
    expect((await finished(next.id)).phase).toBe(JobPhase.COMPLETED);
    for (const job of sleepers.slice(1)) await h.core.jobs.cancel(OWNER, job.id);
  });

  it('lists waiting jobs across teams in the inbox, oldest first', async () => {
    const first = await asked('!ask One?');
    const second = await asked('!interrupt {"two": 2}');
    const third = await asked('!ask Three?');
    const inbox = await h.core.jobs.inbox(OWNER, {});
    expect(inbox.edges.map((e) => e.node.id)).toEqual([first.id, second.id, third.id]);
    expect(new Set(inbox.edges.map((e) => e.node.teamId)).size).toBe(3);
    await answer(second, true);
    await finished(second.id);
    expect((await h.core.jobs.inbox(OWNER, {})).edges.map((e) => e.node.id)).toEqual([first.id, third.id]);
  });
});

function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item ${index}`);
  return item;
}
