import { JobPhase } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

const harness = teamHarnessPerTest();

const usage = { prompt_tokens: 10, completion_tokens: 2 };

/** A `team_message` call to the reviewer under the id a provider reuses (some servers number every answer's calls from `call_0`). */
const message = (id: string, text: string) => ({
  id,
  name: 'team_message',
  arguments: JSON.stringify({ to: ['reviewer'], text, delivery: 'quiet' }),
});

/** Sends `text` to the lead, waits for its turn to end, and answers the job and the last model call's messages. */
async function leadTurn(h: ReturnType<typeof harness>, text: string) {
  const { team, lead } = await h.team();
  const request = await h.send(team, lead, text);
  const done = await waitFor(async () => {
    const job = await h.job(request.id);
    return job.phase === JobPhase.COMPLETED || job.phase === JobPhase.FAILED ? job : null;
  }, "the lead's turn to end");
  const final = h.provider.requests.filter((r) => r.body.model !== 'model-review').at(-1)?.body.messages ?? [];
  return { done, final };
}

describe('tool-call ids a provider reuses', () => {
  it('sends each call of a run, though a later round reuses an earlier call id', async () => {
    const h = harness();
    h.provider.respondWith((body): FakeReply => {
      if (body.model === 'model-review') return { kind: 'answer', content: 'Noted.', usage };
      const tools = body.messages.filter((m) => m.role === 'tool').length;
      if (tools === 0) return { kind: 'answer', toolCalls: [message('call_0', 'First note.')], usage };
      if (tools === 1) return { kind: 'answer', toolCalls: [message('call_0', 'Second note.')], usage };
      return { kind: 'answer', content: 'Sent both.', usage };
    });
    const { done, final } = await leadTurn(h, 'Send two notes');
    expect(done.result?.text).toBe('Sent both.');

    // Each call is answered under an id of its own, and each got a message id of its own.
    const toolAnswers = final.filter((m) => m.role === 'tool');
    expect(toolAnswers).toHaveLength(2);
    const ids = toolAnswers.map((m) => m.tool_call_id);
    expect(new Set(ids).size).toBe(2);
    // Both notes were queued for the reviewer, neither refused as a reuse of the other's message id.
    const results = toolAnswers.map((m) => JSON.parse(String(m.content)));
    expect(results.map((r) => r.recipients)).toEqual([
      [{ member: 'reviewer', state: 'queued' }],
      [{ member: 'reviewer', state: 'queued' }],
    ]);
    expect(new Set(results.map((r) => r.message_id)).size).toBe(2);
    // Each assistant call is answered by the tool message that follows it.
    const calls = final.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
    expect(calls).toEqual(ids);
  });

  it('runs both calls of one answer that gave them the same id, each under an id of its own', async () => {
    const h = harness();
    h.provider.respondWith((body): FakeReply => {
      if (body.model === 'model-review') return { kind: 'answer', content: 'Noted.', usage };
      if (body.messages.at(-1)?.role === 'tool') return { kind: 'answer', content: 'Sent both.', usage };
      return { kind: 'answer', toolCalls: [message('dup', 'First note.'), message('dup', 'Second note.')], usage };
    });
    const { done, final } = await leadTurn(h, 'Send two notes at once');
    expect(done.result?.text).toBe('Sent both.');

    const assistant = final.find((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
    const callIds = assistant?.role === 'assistant' ? (assistant.tool_calls ?? []).map((c) => c.id) : [];
    // The first keeps the provider's id; the second gets a fallback id.
    expect(callIds[0]).toBe('dup');
    expect(callIds[1]).toMatch(/^call_[A-Za-z0-9_-]{16}_\d+_1$/);
    const toolAnswers = final.filter((m) => m.role === 'tool');
    expect(toolAnswers.map((m) => m.tool_call_id)).toEqual(callIds);
    const results = toolAnswers.map((m) => JSON.parse(String(m.content)));
    expect(results.map((r) => r.error)).toEqual([undefined, undefined]);
    expect(new Set(results.map((r) => r.message_id)).size).toBe(2);
  });
});
