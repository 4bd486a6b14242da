import { isTerminal, JobPhase } from '@agent-teams/core';
import type { ChatRequestBody, FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { executeMemberTool } from '../../src/runtimes/openai/member-tools.js';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

const harness = teamHarnessPerTest();

const usage = { prompt_tokens: 10, completion_tokens: 2 };
const interrupt = {
  id: 'call_interrupt',
  name: 'team_interrupt',
  arguments: JSON.stringify({ member: 'reviewer', reason: 'Stop the review' }),
};

/**
 * A model's tool call runs, then its result is stored in a transaction of its own: a server
 * killed between the two replays the stored call on restart, with the same run key and call id.
 * `team_interrupt` ends the member's CURRENT turn; by the replay the member may run a later one,
 * which the replay must leave running, answering the job the first call ended.
 */
/**
 * The provider of both tests: the reviewer's turns run until they are stopped, and the lead's
 * first model call answers with the interrupt, its next one hangs (its turn stays running after
 * the call, as at a crash).
 */
function leadInterrupts(body: ChatRequestBody): FakeReply {
  if (body.model === 'model-review') return { kind: 'hang' };
  return body.messages.at(-1)?.role === 'tool' ? { kind: 'hang' } : { kind: 'answer', toolCalls: [interrupt], usage };
}

describe('a team_interrupt replayed after a crash', () => {
  it('answers the job the first call ended and leaves the turn the member began since running', async () => {
    const h = harness();
    h.provider.respondWith(leadInterrupts);
    const { team, lead, reviewer } = await h.team();
    const running = (id: Parameters<typeof h.job>[0]) =>
      waitFor(async () => ((await h.job(id)).phase === JobPhase.RUNNING ? true : null), `job ${id} to run`);
    const first = await h.send(team, reviewer, 'Review the release notes');
    await running(first.id);
    const request = await h.send(team, lead, 'Stop the review');
    await waitFor(async () => (isTerminal((await h.job(first.id)).phase) ? true : null), 'the first review to end');
    expect((await h.job(first.id)).phase).toBe(JobPhase.CANCELLED);
    // The reviewer's next turn runs while the lead's call is replayed.
    const later = await h.send(team, reviewer, 'Review the changelog');
    await running(later.id);
    expect((await h.job(request.id)).phase).toBe(JobPhase.RUNNING);

    const replayed = JSON.parse(await executeMemberTool(interrupt, h.core.tools.forJob(request.id), request.id));
    expect(replayed).toEqual({ job_id: first.id });
    expect((await h.job(later.id)).phase).toBe(JobPhase.RUNNING);
    // Another call of the run (another call id) ends the turn running now, as without a key.
    const another = { ...interrupt, id: 'call_interrupt_again' };
    const ended = JSON.parse(await executeMemberTool(another, h.core.tools.forJob(request.id), request.id));
    expect(ended).toEqual({ job_id: later.id });
    expect([JobPhase.CANCELLING, JobPhase.CANCELLED]).toContain((await h.job(later.id)).phase);
  });

  it('answers null again for a member that was idle, though it runs a turn by the replay', async () => {
    const h = harness();
    h.provider.respondWith(leadInterrupts);
    const { team, lead, reviewer } = await h.team();
    const request = await h.send(team, lead, 'Stop the review');
    const tools = h.core.tools.forJob(request.id);
    // The first call found the reviewer idle (its result is the lead's next model call's input).
    const answered = await waitFor(
      () => h.provider.requests.find((r) => r.body.messages.at(-1)?.role === 'tool')?.body.messages.at(-1) ?? null,
      'the first call to be answered',
    );
    expect(JSON.parse(String(answered.content))).toEqual({ job_id: null });
    const turn = await h.send(team, reviewer, 'Review the release notes');
    await waitFor(async () => ((await h.job(turn.id)).phase === JobPhase.RUNNING ? true : null), 'the review to run');

    expect(JSON.parse(await executeMemberTool(interrupt, tools, request.id))).toEqual({ job_id: null });
    expect((await h.job(turn.id)).phase).toBe(JobPhase.RUNNING);
  });
});
