import { JobKind, JobPhase } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { describe, expect, it } from 'vitest';
import { teamHarnessPerTest, waitFor } from './openai-team-harness.js';

const harness = teamHarnessPerTest();

const say = (content: string): FakeReply => ({
  kind: 'answer',
  content,
  usage: { prompt_tokens: 10, completion_tokens: 2 },
});

describe('team messages between openai agents', () => {
  it('offers team_message, supplies its message_id, and delivers a follow-up into one turn of the recipient', async () => {
    const h = harness();
    h.provider.respondWith((body) => {
      const last = body.messages[body.messages.length - 1];
      if (body.model === 'model-review') return say('Noted the deadline.');
      if (last?.role === 'tool') return say('Told the reviewer.');
      return {
        kind: 'answer',
        toolCalls: [
          {
            id: 'call_msg',
            name: 'team_message',
            arguments: JSON.stringify({
              to: ['reviewer'],
              text: 'The deadline moved to Friday.',
              delivery: 'follow_up',
            }),
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 2 },
      };
    });
    const { team, lead, reviewer } = await h.team();
    const request = await h.send(team, lead, 'Tell the reviewer about the deadline');
    const turn = await waitFor(async () => {
      const page = await h.store.listJobs(team.id, { kind: JobKind.MESSAGE }, { first: 10, afterSeq: null });
      const job = page.items[0];
      return job?.phase === JobPhase.COMPLETED ? job : null;
    }, "the reviewer's message turn to finish");
    expect(turn).toMatchObject({ memberId: reviewer.id, result: { text: 'Noted the deadline.' } });
    // The two turns run side by side: the lead's second model call may end just after the reviewer's turn.
    const answered = await waitFor(async () => {
      const job = await h.job(request.id);
      return job.phase === JobPhase.COMPLETED ? job : null;
    }, "the lead's turn to finish");
    expect(answered.result?.text).toBe('Told the reviewer.');

    const leadCall = h.provider.requests.find((r) => r.body.model !== 'model-review');
    expect(leadCall?.body.tools?.map((t) => t.function.name)).toContain('team_message');
    const toolAnswer = h.provider.requests.find((r) => r.body.messages.at(-1)?.role === 'tool')?.body.messages.at(-1);
    expect(JSON.parse(String(toolAnswer?.content))).toEqual({
      message_id: `${request.id}:call_msg`,
      recipients: [{ member: 'reviewer', state: 'queued' }],
    });
    // The reviewer's model sees the message as one user entry naming the sender, then answers it once.
    const reviewCalls = h.provider.requests.filter((r) => r.body.model === 'model-review');
    expect(reviewCalls).toHaveLength(1);
    const users = reviewCalls[0]?.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual([`Team message ${request.id}:call_msg from ${lead.name}:\nThe deadline moved to Friday.`]);
    const conversation = await h.store.listConversation(reviewer.conversationId, { first: 20, afterSeq: null });
    expect(conversation.items.filter((m) => m.role === 'USER').map((m) => m.text)).toEqual(users);
  });
});
