import { expect } from 'vitest';
import { WITHOUT_CONTEXT_NOTE } from '../../src/runtimes/openai/context-window.js';
import { context, openAiAgent, type RuntimeFixture, requestInput, settle } from './runtime-fixture.js';

/** The JSON of a user turn message (after its one-line preamble). */
function payloadOf(content: unknown): Record<string, unknown> {
  const text = String(content);
  return JSON.parse(text.slice(text.indexOf('\n') + 1));
}

/**
 * Three turns of one member (decision 0242): each model call sends the earlier turns without the
 * team context their turn message froze and the current turn with it, the third from a fresh
 * runtime (history read from the database, not a cache) byte for byte like the cached path; the
 * stored conversation keeps every context.
 */
export async function checkEarlierTurnsWithoutContext(current: RuntimeFixture): Promise<void> {
  const { provider, runtime, restart, database } = current;
  provider.enqueue(
    { kind: 'answer', content: 'heron' },
    { kind: 'answer', content: 'still heron' },
    { kind: 'answer', content: 'yes' },
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
  expect(provider.requests).toHaveLength(3);
  const first = provider.requests[0]?.body.messages ?? [];
  expect(first[0]?.content).not.toContain(WITHOUT_CONTEXT_NOTE);
  expect(payloadOf(first[1]?.content).team_context).toMatchObject({ goal: 'Ship it' });
  for (const request of provider.requests.slice(1)) {
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
  expect(stored).toHaveLength(3);
  for (const row of stored) expect(payloadOf(row.content).team_context).toMatchObject({ goal: 'Ship it' });
}
