import {
  type InputKind,
  type Job,
  JobPhase,
  Limits,
  nowTimestamp,
  type RuntimeNotice,
  TRUNCATION_NOTICE,
  transition,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { type Harness, harnessPerTest, waitForPhases } from './scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

async function runOne(text: string, phases: readonly string[] = [JobPhase.COMPLETED]): Promise<Job> {
  const { team, members } = await h.team(['researcher', 'reviewer']);
  const [job] = await h.send(team, members.slice(0, 1), text);
  if (!job) throw new Error('no job');
  const [done] = await waitForPhases(h, [job.id], phases);
  if (!done) throw new Error('no job');
  return done;
}

/** Answers a waiting job the way the respond use case does: RESPOND persisted, then the scheduler resumes. */
async function respond(job: Job, kind: InputKind, value: unknown): Promise<void> {
  const requestId = job.pendingInput?.requestId ?? '';
  const response = {
    runKey: `${job.id}:answer:1`,
    inputRequestId: requestId,
    kind,
    value,
    clientRequestId: 'answer-1',
  };
  const now = nowTimestamp({ nowMs: () => Date.now() });
  await h.store.updateJob(
    job.id,
    (current) => transition(current, { type: 'RESPOND', response }, { now, ids: createRandomIds() }),
    {
      now,
    },
  );
  h.scheduler.wake();
}

describe('scheduler with the scripted runtime', () => {
  it('completes a plain request with "<member>: <first line>" and records the turn in the conversation', async () => {
    const job = await runOne('Find three sources\nand summarise them');
    expect(job.result).toEqual({ text: 'm0: Find three sources', truncated: false });
    const page = await h.store.listConversation(job.conversationId, { first: 20, afterSeq: null });
    expect(page.items.map((m) => [m.role, m.text])).toEqual([
      ['USER', 'Find three sources\nand summarise them'],
      ['ASSISTANT', 'm0: Find three sources'],
    ]);
  });

  it('keeps 6,000 bytes of a !bytes 7000 answer and marks it truncated', async () => {
    const job = await runOne('!bytes 7000');
    expect(job.result?.truncated).toBe(true);
    expect(job.result?.text).toBe('x'.repeat(Limits.answerBytes) + TRUNCATION_NOTICE);
  });

  it('delivers three progress deltas for !stream 3 to the scheduler and runtime listeners', async () => {
    const deltas: string[] = [];
    h.runtime.subscribe((notice: RuntimeNotice) => {
      if (notice.type === 'progress' && notice.progress.type === 'text') deltas.push(notice.progress.delta);
    });
    const job = await runOne('!stream 3');
    expect(deltas).toEqual(['delta 1', ' delta 2', ' delta 3']);
    expect(job.result?.text).toBe('delta 1 delta 2 delta 3');
    const reported = h.progress.filter((notice) => notice.jobId === job.id).map((notice) => notice.textDelta);
    expect(reported).toEqual(['delta 1', ' delta 2', ' delta 3']);
  });

  it('calls the member tool of !tool, adds its JSON answer as a line and reports the call as progress', async () => {
    const job = await runOne('!tool read_team_context {}\n!reply done');
    const [line, last] = (job.result?.text ?? '').split('\n');
    expect(JSON.parse(line ?? '')).toMatchObject({ goal: 'Test' });
    expect(last).toBe('done');
    const tools = h.progress.filter((notice) => notice.jobId === job.id && typeof notice.toolCall === 'string');
    expect(tools.map((notice) => notice.toolCall)).toEqual(['read_team_context']);
  });

  it('fails a refused !handoff with a message naming the code', async () => {
    const job = await runOne('!handoff nobody please review', [JobPhase.FAILED]);
    expect(job.error).toBe('handoff to nobody refused: NOT_FOUND');
  });

  it('fails with the message of !fail', async () => {
    const job = await runOne('!fail the source is gone', [JobPhase.FAILED]);
    expect(job.error).toBe('the source is gone');
  });

  it('waits for input on !ask without holding a slot, then resumes with the answer', async () => {
    const job = await runOne('!ask Which region?', [JobPhase.WAITING_INPUT]);
    expect(job.pendingInput).toMatchObject({ kind: 'CLARIFICATION', question: 'Which region?' });
    expect(await h.store.listActiveJobs()).toEqual([]);
    await respond(job, 'CLARIFICATION', 'EU');
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('answered: EU');
  });

  it('stops on !interrupt and resumes with the compact JSON response', async () => {
    const job = await runOne('!interrupt {"approve": "deploy"}', [JobPhase.WAITING_INPUT]);
    expect(job.pendingInput).toMatchObject({ kind: 'INTERRUPT', payload: { approve: 'deploy' } });
    await respond(job, 'INTERRUPT', { approved: true });
    const [done] = await waitForPhases(h, [job.id], [JobPhase.COMPLETED]);
    expect(done?.result?.text).toBe('resumed: {"approved":true}');
  });

  it('runs !sleep in the background and completes after it', async () => {
    const job = await runOne('!sleep 50\n!reply awake');
    expect(job.result?.text).toBe('slept 50 ms\nawake');
  });
});
