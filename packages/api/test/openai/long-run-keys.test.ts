import { asJobId, JobPhase } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { HASHED_CALL_KEY_PREFIX } from '../../src/runtimes/call-key.js';
import type { ToolCall } from '../../src/runtimes/openai/member-tools.js';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

/**
 * Keyed tool calls after waits: each `wait_for_change` of a job makes its later run keys longer
 * (the wake's run key names the wait's request id, which names the run key before it). With
 * OpenAI-shaped call ids, two waits made the derived `request_id` longer than a key may be, and
 * every keyed call of the turn was refused INVALID_INPUT on an argument the model is not offered.
 */
const harness = teamHarnessPerTest();
const usage = { prompt_tokens: 10, completion_tokens: 2 };
/** OpenAI's call ids: `call_` and 24 characters. */
const id = (n: number) => `call_${String(n).padStart(24, 'x')}`;
const call = (n: number, name: string, args: Record<string, unknown>): ToolCall => ({
  id: id(n),
  name,
  arguments: JSON.stringify(args),
});
const calling = (c: ToolCall): FakeReply => ({ kind: 'answer', toolCalls: [c], usage });

describe('keyed tool calls after two waits in one turn', () => {
  it('claims a task and sends a request, each with a key derived to fit', async () => {
    const h = harness();
    const results: Record<string, unknown>[] = [];
    h.provider.respondWith((body): FakeReply => {
      if (body.model === 'model-review') return { kind: 'hang' };
      const tool = body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)));
      results.splice(0, results.length, ...tool);
      const taskId = tool[0]?.task?.id;
      switch (tool.length) {
        case 0:
          return calling(call(1, 'task_create', { title: 'Ship the release' }));
        case 1:
        case 2:
          return calling(call(tool.length + 1, 'wait_for_change', { timeout_ms: 60_000 }));
        case 3:
          return calling(call(4, 'task_claim', { task_id: taskId, expected_revision: 1 }));
        case 4:
          return calling(call(5, 'send_member', { member: 'reviewer', text: 'Check it' }));
        default:
          return { kind: 'answer', content: 'done', usage };
      }
    });
    const { team, lead, reviewer } = await h.team();
    const request = await h.send(team, lead, 'Ship it');
    // Each wait ends on the next change in the team: the reviewer's own job events may end it
    // first, else a request to the reviewer does.
    for (const round of [1, 2]) {
      await waitFor(async () => {
        if (results.length > round) return 'woken';
        const waiting = (await h.job(request.id)).phase === JobPhase.WAITING_CHANGE && results.length === round;
        return waiting ? 'waiting' : null;
      }, `wait ${round}`);
      if (results.length === round) await h.send(team, reviewer, `wake the lead ${round}`);
    }
    await waitFor(async () => (results.length >= 5 ? true : null), 'the claim and the send');
    // The run key is past what a key may be: the derived keys were hashed.
    expect(((await h.job(request.id)).runKey ?? '').length).toBeGreaterThan(128);
    expect(results[3]).toMatchObject({ task: { status: 'claimed' } });
    expect(results[4]).toMatchObject({ status: expect.any(String) });
    expect(results[4]).not.toHaveProperty('error');
    const sent = await h.job(asJobId(String(results[4]?.id)));
    expect(sent.clientKey.startsWith(HASHED_CALL_KEY_PREFIX)).toBe(true);
  }, 60_000);
});
