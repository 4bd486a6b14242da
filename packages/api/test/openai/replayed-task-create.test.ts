import { JobPhase, type Team } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { executeMemberTool } from '../../src/runtimes/openai/member-tools.js';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

const harness = teamHarnessPerTest();

/** The team's board, in creation order. */
const board = async (team: Team) =>
  (await harness().core.tasks.list(team, { first: 50 })).edges.map((edge) => edge.node);

const usage = { prompt_tokens: 10, completion_tokens: 2 };
const call = (id: string, title: string) => ({ id, name: 'task_create', arguments: JSON.stringify({ title }) });
const calling = (...calls: ReturnType<typeof call>[]): FakeReply => ({ kind: 'answer', toolCalls: calls, usage });

/**
 * A model's tool call runs, then its result is stored in a transaction of its own: a server
 * killed between the two (found with SIGKILL under load: the board then held two tasks for the
 * one call) replays the stored call on restart, with the same run key and call id, while the job
 * still runs. A `task_create` replayed so must answer the task it made, not put a second one on
 * the board.
 */
describe('a task_create replayed after a crash', () => {
  it('answers the task the first execution created, and creates one for each other call', async () => {
    const h = harness();
    const notes = call('call_notes', 'Write the notes');
    const tests = call('call_tests', 'Run the tests');
    // The turn stays running after its calls (the next model call hangs), as at a crash.
    h.provider.respondWith((body) =>
      body.messages.at(-1)?.role === 'tool' ? { kind: 'hang' } : calling(notes, tests),
    );
    const { team, lead } = await h.team();
    const request = await h.send(team, lead, 'File tasks for the notes and the tests');
    const first = await waitFor(async () => {
      const tasks = await board(team);
      return tasks.length === 2 ? tasks : null;
    }, 'both calls to create their task');
    expect((await h.job(request.id)).phase).toBe(JobPhase.RUNNING);

    // The replay: the same stored call, executed again for the same run (run key = job id).
    const tools = h.core.tools.forJob(request.id);
    const replayed = JSON.parse(await executeMemberTool(notes, tools, request.id));
    expect(replayed.task).toMatchObject({ id: first[0]?.id, title: 'Write the notes' });
    expect((await board(team)).map((t) => t.id)).toEqual(first.map((t) => t.id));
    // The same key with other arguments is a conflict, named as the tool's argument.
    const other = JSON.parse(await executeMemberTool(call('call_notes', 'Other'), tools, request.id));
    expect(other.error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', message: expect.stringContaining('request_id') });
    // Another run's call with the same id is another request: it creates.
    await executeMemberTool(notes, tools, 'job_other_run');
    expect((await board(team)).map((t) => t.title)).toEqual(['Write the notes', 'Run the tests', 'Write the notes']);
  });
});
