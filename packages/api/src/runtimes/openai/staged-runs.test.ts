import { asConversationId, asJobId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ORPHANED_RUNS_KEPT, type RunBegin, StagedRuns } from './staged-runs.js';

function begin(n: number, conversation = 'conv_1'): RunBegin {
  return {
    runKey: `job_${n}`,
    runId: `orun_job_${n}`,
    conversationId: asConversationId(conversation),
    jobId: asJobId(`job_${n}`),
    doc: {
      memberName: 'm',
      teamId: 't',
      jobId: `job_${n}`,
      startedAtMs: 0,
      timeoutMs: 0,
      outcome: null,
      blocked: null,
    },
    messages: [{ role: 'user', content: `input ${n}`, toolCalls: null, toolCallId: null, toolName: null }],
    now: '2026-12-03T10:00:00.000Z',
  };
}

describe('StagedRuns', () => {
  it('lets exactly one of two concurrent writes carry a begin, and keeps it held when the write throws', async () => {
    const staged = new StagedRuns();
    staged.stage(begin(1));
    const carried: (string | null)[] = [];
    const write = (fail: boolean) =>
      staged.carry('orun_job_1', async (held) => {
        carried.push(held?.runId ?? null);
        if (fail) throw new Error('disk full');
        return { result: held !== null, carried: true };
      });
    await expect(write(true)).rejects.toThrow('disk full');
    expect(staged.has('orun_job_1')).toBe(true);
    const [first, second] = await Promise.all([write(false), write(false)]);
    expect([first, second]).toEqual([true, false]);
    expect(carried).toEqual(['orun_job_1', 'orun_job_1', null]);
    expect(staged.has('orun_job_1')).toBe(false);
  });

  it('shows a held run to its conversation, an orphaned one only to persist', () => {
    const staged = new StagedRuns();
    staged.stage(begin(1));
    staged.stage(begin(2, 'conv_2'));
    expect(staged.messagesIn('conv_1').map((m) => m.content)).toEqual(['input 1']);
    staged.orphan('orun_job_1');
    expect(staged.messagesIn('conv_1')).toEqual([]);
    expect(staged.has('orun_job_1')).toBe(true);
    expect(staged.messagesOf('orun_job_1')?.map((m) => m.step)).toEqual([0]);
    expect(staged.messagesIn('conv_2').map((m) => m.content)).toEqual(['input 2']);
  });

  it(`keeps at most ${ORPHANED_RUNS_KEPT} orphaned runs, forgetting the oldest first`, () => {
    const staged = new StagedRuns();
    for (let n = 1; n <= ORPHANED_RUNS_KEPT + 1; n += 1) staged.stage(begin(n));
    staged.stage(begin(0)); // a held run with a live execution is never forgotten this way
    for (let n = 1; n < ORPHANED_RUNS_KEPT; n += 1) staged.orphan(`orun_job_${n}`);
    expect(staged.has('orun_job_1')).toBe(true); // n − 1 orphans
    staged.orphan(`orun_job_${ORPHANED_RUNS_KEPT}`);
    expect(staged.has('orun_job_1')).toBe(true); // n
    staged.orphan(`orun_job_${ORPHANED_RUNS_KEPT + 1}`);
    expect(staged.has('orun_job_1')).toBe(false); // n + 1: the oldest goes
    expect(staged.has('orun_job_2')).toBe(true);
    expect(staged.has('orun_job_0')).toBe(true);
  });
});
