import { asMessageId, teamMessageEntry } from '@agent-teams/core';
import { expect } from 'vitest';
import { WITHOUT_CONTEXT_NOTE } from '../../src/runtimes/openai/history-team-context.js';
import { context, openAiAgent, type RuntimeFixture, requestInput, settle } from './runtime-fixture.js';

/** The JSON of a user turn message (after its one-line preamble). */
function payloadOf(content: unknown): Record<string, unknown> {
  const text = String(content);
  return JSON.parse(text.slice(text.indexOf('\n') + 1));
}

/**
 * Four turns of one member (decision 0242): each model call sends the earlier turns without the
 * team context their turn message froze and the current turn with it (the third from a fresh
 * runtime, whose history is read from the database again); a message turn, which carries no
 * context of its own, sends the newest one whole. The stored conversation keeps every context.
 */
export async function checkEarlierTurnsWithoutContext(current: RuntimeFixture): Promise<void> {
  const { provider, runtime, restart, database } = current;
  provider.enqueue(
    { kind: 'answer', content: 'heron' },
    { kind: 'answer', content: 'still heron' },
    { kind: 'answer', content: 'yes' },
    { kind: 'answer', content: 'noted' },
  );
  const agent = openAiAgent();
  const texts = ['Pick a code word', 'What was it?', 'Sure?'];
  for (const [index, text] of texts.entries()) {
    const jobId = `job_${index + 1}`;
    const ctx = context(jobId, agent);
    const run = index === 2 ? restart() : runtime;
    const { runId } = await run.start({ runKey: jobId, input: requestInput(jobId, text), context: ctx });
    expect(await settle(run, runId, ctx)).toMatchObject({ state: 'completed' });
  }
  // A message turn: delivered team messages only, no turn message (and so no context) of its own.
  const ctx = context('job_4', agent);
  const message = { id: asMessageId('msg_1'), key: 'msg_1', fromName: 'Writer', text: 'Heads up' };
  const input = { ...requestInput('job_4', ''), kind: 'message' as const, messages: [message] };
  const { runId } = await runtime.start({ runKey: 'job_4', input, context: ctx });
  expect(await settle(runtime, runId, ctx)).toMatchObject({ state: 'completed' });
  expect(provider.requests).toHaveLength(4);
  const last = provider.requests[3]?.body.messages ?? [];
  expect(last.at(-1)?.content).toBe(teamMessageEntry(message));
  // The newest turn message with a context (the third request's) goes whole, older ones without.
  const requests = last
    .filter((m) => m.role === 'user')
    .slice(0, -1)
    .map((m) => payloadOf(m.content));
  expect(requests.map((p) => [p.request, p.team_context === undefined])).toEqual([
    ['Pick a code word', true],
    ['What was it?', true],
    ['Sure?', false],
  ]);
  const first = provider.requests[0]?.body.messages ?? [];
  expect(first[0]?.content).not.toContain(WITHOUT_CONTEXT_NOTE);
  expect(payloadOf(first[1]?.content).team_context).toMatchObject({ goal: 'Ship it' });
  for (const request of provider.requests.slice(1, 3)) {
    const messages = request.body.messages;
    expect(messages[0]?.content).toContain(WITHOUT_CONTEXT_NOTE);
    const users = messages.filter((message) => message.role === 'user').map((message) => payloadOf(message.content));
    const now = users.pop();
    expect(now?.team_context).toMatchObject({ goal: 'Ship it' });
    expect(users.length).toBeGreaterThan(0);
    for (const earlier of users) {
      expect(earlier).not.toHaveProperty('team_context');
      expect(earlier).toMatchObject({ kind: 'request', from: 'a person (the team owner)' });
    }
  }
  expect(payloadOf(provider.requests[2]?.body.messages[3]?.content).request).toBe('What was it?');
  // What is stored keeps each turn's context: only what is sent leaves it out.
  const stored = await database.db
    .selectFrom('openai_messages')
    .select('content')
    .where('role', '=', 'user')
    .orderBy('seq')
    .execute();
  expect(stored.map((row) => row.content).at(-1)).toBe(teamMessageEntry(message));
  expect(stored).toHaveLength(4);
  for (const row of stored.slice(0, 3)) expect(payloadOf(row.content).team_context).toMatchObject({ goal: 'Ship it' });
}
