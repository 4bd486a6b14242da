import { describe, expect, it } from 'vitest';
import { TRUNCATION_NOTICE } from '../limits/limits.js';
import { type Job, JobKind, JobPhase } from '../model/job.js';
import type { JobCommand, JobEffect } from './job-commands.js';
import { transition } from './job-machine.js';
import { askedByMember, makeTestJob, RESEARCHER, TEST_NOW, testContext, WRITER } from './make-test-job.js';

function apply(job: Job, command: JobCommand): { job: Job; effects: readonly JobEffect[] } {
  const outcome = transition(job, command, testContext());
  if (!outcome.ok) throw outcome.error;
  return outcome;
}

const receipts = (effects: readonly JobEffect[]) => effects.filter((e) => e.type === 'CREATE_RECEIPT');

describe('completing a job', () => {
  it('stores the answer, appends a COMPLETED record and sends no receipt when a person asked', () => {
    const { job, effects } = apply(makeTestJob(JobPhase.RUNNING), { type: 'COMPLETE', answer: 'Done.' });
    expect(job).toMatchObject({ phase: 'COMPLETED', result: { text: 'Done.', truncated: false }, error: null });
    expect(job).toMatchObject({ finishedAt: TEST_NOW, pendingInput: null, pendingResponse: null });
    expect(effects).toEqual([
      {
        type: 'APPEND_RECORD',
        kind: 'COMPLETED',
        memberId: WRITER,
        fromMemberId: WRITER,
        text: 'Done.',
        truncated: false,
      },
    ]);
  });

  it('returns the result to the member who asked as a receipt in its conversation', () => {
    const { effects } = apply(askedByMember(makeTestJob(JobPhase.RUNNING)), { type: 'COMPLETE', answer: 'Done.' });
    const [receipt] = receipts(effects);
    if (receipt?.type !== 'CREATE_RECEIPT') throw new Error('expected a receipt');
    expect(receipt.receipt).toMatchObject({ id: 'job_900', memberId: RESEARCHER, conversationId: 'conversation_1' });
    expect(JSON.parse(receipt.receipt.text)).toEqual({
      request_id: 'job_1',
      from_member: WRITER,
      status: 'COMPLETED',
      result: 'Done.',
    });
  });

  it('sends no receipt for a finished receipt job', () => {
    const job = askedByMember(makeTestJob(JobPhase.RUNNING, { kind: JobKind.RECEIPT }));
    expect(receipts(apply(job, { type: 'COMPLETE', answer: 'Thanks.' }).effects)).toEqual([]);
  });

  const cases = [
    { name: '5,999 ASCII bytes', answer: 'a'.repeat(5_999), kept: 'a'.repeat(5_999), truncated: false },
    { name: '6,000 ASCII bytes', answer: 'a'.repeat(6_000), kept: 'a'.repeat(6_000), truncated: false },
    { name: '6,001 ASCII bytes', answer: 'a'.repeat(6_001), kept: 'a'.repeat(6_000), truncated: true },
    { name: 'CJK ending at 6,000 bytes', answer: '数'.repeat(2_000), kept: '数'.repeat(2_000), truncated: false },
    {
      name: 'CJK crossing 6,000 bytes',
      answer: `a${'数'.repeat(2_000)}`,
      kept: `a${'数'.repeat(1_999)}`,
      truncated: true,
    },
    {
      name: 'emoji crossing 6,000 bytes',
      answer: `ab${'😀'.repeat(1_500)}`,
      kept: `ab${'😀'.repeat(1_499)}`,
      truncated: true,
    },
  ];
  for (const { name, answer, kept, truncated } of cases) {
    it(`bounds an answer of ${name} in the job, the record and the receipt`, () => {
      const text = truncated ? kept + TRUNCATION_NOTICE : kept;
      const { job, effects } = apply(askedByMember(makeTestJob(JobPhase.RUNNING)), { type: 'COMPLETE', answer });
      expect(job.result).toEqual({ text, truncated });
      expect(effects[0]).toMatchObject({ type: 'APPEND_RECORD', text, truncated });
      const receipt = receipts(effects)[0];
      expect(receipt?.type === 'CREATE_RECEIPT' && JSON.parse(receipt.receipt.text).result).toBe(text);
    });
  }
});

describe('failing a job', () => {
  it('fails a QUEUED job without a start time and returns a FAILED receipt to the asking member', () => {
    const { job, effects } = apply(askedByMember(makeTestJob(JobPhase.QUEUED)), { type: 'FAIL', error: 'No agent.' });
    expect(job).toMatchObject({ phase: 'FAILED', error: 'No agent.', result: { text: 'No agent.', truncated: false } });
    expect(job).toMatchObject({ startedAt: null, finishedAt: TEST_NOW });
    expect(effects[0]).toMatchObject({ type: 'APPEND_RECORD', kind: 'FAILED', text: 'No agent.' });
    const receipt = receipts(effects)[0];
    expect(receipt?.type === 'CREATE_RECEIPT' && JSON.parse(receipt.receipt.text).status).toBe('FAILED');
  });

  it('cuts a long failure message to 6,000 bytes at a character boundary, without the answer notice', () => {
    const { job } = apply(makeTestJob(JobPhase.RUNNING), { type: 'FAIL', error: `ab${'😀'.repeat(1_500)}` });
    expect(job.error).toBe(`ab${'😀'.repeat(1_499)}`);
    expect(job.result).toEqual({ text: job.error, truncated: true });
  });

  it('fails a timed-out job, says so, and keeps its run id so the scheduler can cancel the run', () => {
    const { job, effects } = apply(askedByMember(makeTestJob(JobPhase.RUNNING)), { type: 'TIME_OUT', timeoutMs: 1500 });
    expect(job).toMatchObject({ phase: JobPhase.FAILED, runId: 'run_1' });
    expect(job.error).toBe('Timed out after 1500 ms; the run was cancelled.');
    expect(effects.map((e) => e.type)).toEqual(['APPEND_RECORD', 'CREATE_RECEIPT']);
  });
});

describe('cancelling', () => {
  it('ends a QUEUED job at once, says it never started, and never sends a receipt', () => {
    const { job, effects } = apply(askedByMember(makeTestJob(JobPhase.QUEUED)), { type: 'CANCEL' });
    const text = 'Cancelled before it started.';
    expect(job).toMatchObject({ phase: 'CANCELLED', error: text, result: { text, truncated: false } });
    expect(job.finishedAt).toBe(TEST_NOW);
    expect(effects).toEqual([
      { type: 'APPEND_RECORD', kind: 'CANCELLED', memberId: WRITER, fromMemberId: WRITER, text, truncated: false },
    ]);
  });

  for (const command of [
    { type: 'CANCEL_CONFIRMED' },
    { type: 'COMPLETE', answer: 'Late answer' },
    { type: 'FAIL', error: 'Late failure' },
    { type: 'ASK_INPUT', input: { kind: 'CLARIFICATION', requestId: 'q_3', question: 'Late?' } },
  ] as const) {
    it(`ends a CANCELLING job CANCELLED on ${command.type}, discarding any outcome and sending no receipt`, () => {
      const pending = { kind: 'CLARIFICATION', requestId: 'q_1', question: 'Which region?' } as const;
      const cancelling = askedByMember(makeTestJob(JobPhase.CANCELLING, { pendingInput: pending }));
      const { job, effects } = apply(cancelling, command);
      const text = 'Cancelled; the conversation and its checkpoints are kept.';
      expect(job).toMatchObject({ phase: 'CANCELLED', error: text, result: { text, truncated: false } });
      expect(job).toMatchObject({ pendingInput: null, pendingResponse: null, finishedAt: TEST_NOW });
      expect(effects).toEqual([
        { type: 'APPEND_RECORD', kind: 'CANCELLED', memberId: WRITER, fromMemberId: WRITER, text, truncated: false },
      ]);
    });
  }
});
