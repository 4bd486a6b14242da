import { JobPhase } from '@agent-teams/core';
import type { FakeReply } from '@agent-teams/testkit/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loopbackOrError } from '../support/chat-provider-server.js';
import { openTeamHarness, type TeamHarness, waitFor } from './openai-team-harness.js';

const server = setupServer();
let h: TeamHarness;

beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
afterAll(() => server.close());
beforeEach(async () => {
  h = await openTeamHarness();
});
afterEach(async () => {
  await h.close();
  server.resetHandlers();
});

const call = (id: string, name: string, args: unknown): FakeReply => ({
  kind: 'answer',
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  usage: { prompt_tokens: 10, completion_tokens: 5 },
});
const say = (content: string): FakeReply => ({
  kind: 'answer',
  content,
  usage: { prompt_tokens: 10, completion_tokens: 5 },
});

describe('an openai lead', () => {
  it('sees its role and the lead tools, spawns a teammate, waits for a change and continues with it', async () => {
    h.provider.respondWith((body) => {
      const last = body.messages.at(-1);
      if (body.model === 'model-review') return say('Reviewed.');
      if (last?.role === 'tool' && last.content?.includes('"timed_out"')) return say('The team moved; done.');
      if (last?.role === 'tool' && last.content?.includes('member_id'))
        return call('call_wait', 'wait_for_change', { timeout_ms: 60_000 });
      return call('call_spawn', 'team_spawn', { name: 'helper', agent: 'checker', role: 'Double-checks' });
    });
    const { team, lead, reviewer } = await h.team();
    const request = await h.send(team, lead, 'Grow the team, then wait for news');
    await waitFor(
      async () => ((await h.job(request.id)).phase === JobPhase.WAITING_CHANGE ? true : null),
      'the lead to wait',
    );
    const roster = await h.core.teams.members([team.id]);
    expect(roster.map((m) => [m.name, m.role])).toEqual([
      ['lead', 'Plans the release'],
      ['reviewer', null],
      ['helper', 'Double-checks'],
    ]);

    const news = await h.send(team, reviewer, 'Review the plan');
    const done = await waitFor(async () => {
      const job = await h.job(request.id);
      return job.phase === JobPhase.COMPLETED ? job : null;
    }, 'the lead to continue');
    expect(done.result?.text).toBe('The team moved; done.');

    const leadCalls = h.provider.requests.filter((r) => r.body.model === 'model-lead');
    const toolNames = (i: number) => leadCalls[i]?.body.tools?.map((t) => t.function.name) ?? [];
    expect(toolNames(0)).toEqual(expect.arrayContaining(['team_spawn', 'team_retire', 'team_interrupt', 'team_close']));
    expect(leadCalls[0]?.body.messages[0]?.content).toContain('Your role in the team: "Plans the release".');
    const woken = leadCalls.at(-1)?.body.messages.at(-1);
    const result = JSON.parse(String(woken?.content)) as { timed_out: boolean; changes: { job_id?: string }[] };
    expect(result.timed_out).toBe(false);
    expect(result.changes.some((c) => c.job_id === news.id)).toBe(true);

    // The lead wakes when the request is sent; the reviewer answers it on its own time.
    await waitFor(
      async () => ((await h.job(news.id)).phase === JobPhase.COMPLETED ? true : null),
      'the reviewer to answer',
    );
    const reviewerCalls = h.provider.requests.filter((r) => r.body.model === 'model-review');
    expect(reviewerCalls.length).toBeGreaterThan(0);
    for (const r of reviewerCalls) {
      expect(r.body.tools?.map((t) => t.function.name)).not.toContain('team_spawn');
      expect(r.body.tools?.map((t) => t.function.name)).toContain('wait_for_change');
    }
  });

  it("forks a teammate whose model sees the lead's completed turns first", async () => {
    h.provider.respondWith((body) => {
      const last = body.messages.at(-1);
      if (body.model === 'model-review') return say('Helper here.');
      if (last?.role === 'tool') return say('Spawned.');
      if (String(last?.content).includes('Fork a helper')) {
        return call('call_fork', 'team_spawn', { name: 'helper', agent: 'checker', context: 'fork' });
      }
      return say('The plan: ship on Friday 周五.');
    });
    const { team, lead } = await h.team();
    const first = await h.send(team, lead, 'Make the plan');
    await waitFor(async () => ((await h.job(first.id)).phase === JobPhase.COMPLETED ? true : null), 'the plan');
    const second = await h.send(team, lead, 'Fork a helper');
    await waitFor(async () => ((await h.job(second.id)).phase === JobPhase.COMPLETED ? true : null), 'the fork');
    const helper = (await h.core.teams.members([team.id])).find((m) => m.name === 'helper');
    if (helper === undefined) throw new Error('no helper');
    const asked = await h.send(team, helper, 'What is the plan?');
    await waitFor(async () => ((await h.job(asked.id)).phase === JobPhase.COMPLETED ? true : null), 'the helper');
    const helperCall = h.provider.requests.find((r) => r.body.model === 'model-review');
    const contents = helperCall?.body.messages.map((m): [string, string] => [m.role, String(m.content)]) ?? [];
    const planAt = contents.findIndex(
      ([role, text]) => role === 'assistant' && text === 'The plan: ship on Friday 周五.',
    );
    const askAt = contents.findIndex(([role, text]) => role === 'user' && text.includes('What is the plan?'));
    expect(planAt).toBeGreaterThan(0);
    expect(askAt).toBeGreaterThan(planAt);
    // The seeded user entry is the readable text of the lead's completed turn; the turn that was
    // still running when the fork happened is not part of it (it shows only in the team context).
    expect(contents.filter(([role]) => role === 'user').map(([, text]) => text)).toContain('Make the plan');
    expect(contents.some(([, text]) => text === 'Fork a helper')).toBe(false);
  });
});
