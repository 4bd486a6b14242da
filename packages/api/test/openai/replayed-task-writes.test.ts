import { JobPhase } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { executeMemberTool, type ToolCall } from '../../src/runtimes/openai/member-tools.js';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

const harness = teamHarnessPerTest();

const usage = { prompt_tokens: 10, completion_tokens: 2 };
const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const calling = (c: ToolCall): FakeReply => ({ kind: 'answer', toolCalls: [c], usage });

/**
 * The task writes name the revision they were based on, and their own change moves it on: a
 * call replayed after a crash (its change committed, its result not stored; see
 * `replayed-task-create.test.ts`) was refused TASK_STALE_REVISION, telling the model its write
 * failed though it succeeded. Replayed with the same run key and call id, it must answer the task.
 */
describe('task writes replayed after a crash', () => {
  it('answer a replayed task_claim and task_complete with the task, and refuse every other stale write as before', async () => {
    const h = harness();
    let taskId = '';
    const claim = () => call('call_claim', 'task_claim', { task_id: taskId, expected_revision: 1 });
    const complete = () =>
      call('call_complete', 'task_complete', { task_id: taskId, expected_revision: 2, result: 'Shipped' });
    // The lead creates a task, claims it and completes it; then its turn stays running (the next
    // model call hangs), as at a crash. The reviewer's turns hang from the start.
    h.provider.respondWith((body): FakeReply => {
      if (body.model === 'model-review') return { kind: 'hang' };
      const results = body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
      if (results.length === 0) return calling(call('call_create', 'task_create', { title: 'Ship the release' }));
      taskId = results[0].task.id;
      if (results.length === 1) return calling(claim());
      if (results.length === 2) return calling(complete());
      return { kind: 'hang' };
    });
    const { team, lead, reviewer } = await h.team();
    const request = await h.send(team, lead, 'Ship it');
    const done = await waitFor(async () => {
      const [task] = (await h.core.tasks.list(team, { first: 5 })).edges.map((edge) => edge.node);
      return task?.status === 'DONE' ? task : null;
    }, 'the task to be done');
    expect(done).toMatchObject({ revision: 3, result: 'Shipped' });
    expect((await h.job(request.id)).phase).toBe(JobPhase.RUNNING);

    // The replays: the same stored calls, executed again for the same run (run key = job id).
    const tools = h.core.tools.forJob(request.id);
    for (const replayed of [claim(), complete()]) {
      const answer = JSON.parse(await executeMemberTool(replayed, tools, request.id));
      expect(answer).toEqual({ task: expect.objectContaining({ id: taskId, status: 'done', revision: 3 }) });
    }
    const [after] = (await h.core.tasks.list(team, { first: 5 })).edges.map((edge) => edge.node);
    expect(after).toEqual(done);

    // Unchanged: a write without a key, another call of the run, and another member's call under
    // the same request_id are refused on the stale revision.
    await expect(tools.invoke('task_claim', { task_id: taskId, expected_revision: 1 })).rejects.toMatchObject({
      code: 'TASK_STALE_REVISION',
      details: { currentRevision: 3 },
    });
    const stale = { error: expect.objectContaining({ code: 'TASK_STALE_REVISION', current_revision: 3 }) };
    const other = { ...claim(), id: 'call_claim_again' };
    expect(JSON.parse(await executeMemberTool(other, tools, request.id))).toEqual(stale);
    const review = await h.send(team, reviewer, 'Check the release');
    await waitFor(async () => ((await h.job(review.id)).phase === JobPhase.RUNNING ? true : null), 'the review to run');
    const theirs = h.core.tools.forJob(review.id);
    const sameKey = {
      ...claim(),
      arguments: JSON.stringify({ task_id: taskId, expected_revision: 1, request_id: `${request.id}:call_claim` }),
    };
    expect(JSON.parse(await executeMemberTool(sameKey, theirs, review.id))).toEqual(stale);
  });
});
