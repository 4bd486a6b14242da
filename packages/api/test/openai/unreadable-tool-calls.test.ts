// A model message's tool calls that no longer read (a hand-edited or damaged database) cost only
// that message's calls: the member's later turns still run, and a turn in progress whose own
// calls are lost fails with STATE_LOST instead of ending as if the model had answered
// (`stored-tool-calls.ts`, decision 0245).
import { JobErrorCode, JobPhase, type RunState } from '@agent-teams/core';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOST_CALLS_TEXT } from '../../src/runtimes/openai/context-window.js';
import { outcomeCommand } from '../../src/scheduler/run-outcome.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { type ServedChatProvider, serveChatProvider } from '../support/chat-provider-server.js';
import { databaseTargets } from '../support/database-targets.js';
import { unreadableWarnings } from '../support/unreadable-warnings.js';
import {
  context,
  openAiAgent,
  RecordingTools,
  requestInput,
  StuckTools,
  settle,
  until,
  useRuntimeFixture,
} from './runtime-fixture.js';

/** Each target opened as a server opens it (a pool of 4 on PostgreSQL). */
const TARGETS = databaseTargets('agent_teams_tool_calls').map(
  ([name, make]) => [name, async () => openDatabase(await make(), { poolSize: 4 })] as const,
);

/** Text that does not parse (CJK and an emoji in it), and JSON that is not a list of calls. */
const BROKEN = '{"broken": "数据 😀';
const WRONG_SHAPE = '[{"id":1}]';

const warned = unreadableWarnings();

/** The test's reports, once the one of the damaged row `id` came (warnings come a tick later). */
async function reportsOf(id: string): Promise<readonly string[]> {
  await until(() => warned().some((message) => message.includes(id)), 'the warning');
  return warned();
}

/** Writes `text` over the stored tool calls of the conversation's model answer: @returns its row id. */
async function damage(database: OpenedDatabase, text: string): Promise<string> {
  const rows = await database.db
    .selectFrom('openai_messages')
    .select('id')
    .where('tool_calls_json', 'is not', null)
    .execute();
  expect(rows).toHaveLength(1);
  const id = rows[0]?.id as string;
  await sql`UPDATE openai_messages SET tool_calls_json = ${text} WHERE id = ${id}`.execute(database.db);
  return id;
}

/** How such a run ends, as `poll` answers it. */
const LOST: RunState = {
  state: 'failed',
  error: 'The run lost its tool calls (a stored value no longer reads); it cannot continue.',
  code: JobErrorCode.STATE_LOST,
};

describe.each(TARGETS)('tool calls that no longer read (%s)', (_name, open) => {
  const fixture = useRuntimeFixture(open);
  /** The fixture's provider, served over real HTTP on loopback. */
  let served: ServedChatProvider;
  beforeEach(async () => {
    served = await serveChatProvider(fixture().provider);
  });
  afterEach(() => served.close());

  it.each([
    ['text that does not parse', BROKEN, 'does not read as JSON'],
    ['JSON of another shape', WRONG_SHAPE, 'is not a list of tool calls'],
  ])("answers a member's next turn when an earlier turn's calls are %s", async (_what, text, report) => {
    const { provider, runtime, restart, database } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_ctx', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'The goal is to ship it.' },
      { kind: 'answer', content: 'Still shipping it.' },
    );
    const tools = new RecordingTools({ read_team_context: { goal: 'Ship it' } });
    const agent = openAiAgent({ baseUrl: served.baseUrl });
    const first = context('job_1', agent, tools);
    const a = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Goal?'), context: first });
    expect(await settle(runtime, a.runId, first)).toEqual({ state: 'completed', answer: 'The goal is to ship it.' });
    // Edited while the server is down: the next one reads the history from the database.
    await runtime.dispose();
    const id = await damage(database, text);

    const again = restart();
    try {
      const second = context('job_2', agent, tools);
      const b = await again.start({ runKey: 'job_2', input: requestInput('job_2', 'Still?'), context: second });
      expect(await settle(again, b.runId, second)).toEqual({ state: 'completed', answer: 'Still shipping it.' });
    } finally {
      await again.dispose();
    }
    // A valid request: no answer with lost calls, and no tool result answering no call.
    const sent = provider.requests[2]?.body.messages ?? [];
    // The answer that lost its calls had no text: it says so, rather than go empty, in one message
    // with the answer after it, so that no two messages of one role stand side by side.
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[2]).toEqual({ role: 'assistant', content: `${LOST_CALLS_TEXT}\n\nThe goal is to ship it.` });
    expect(sent.filter((message) => 'tool_calls' in message)).toEqual([]);
    // Reported once, naming the row and never the stored text.
    expect(await reportsOf(id)).toEqual([
      `openai_messages.tool_calls_json of ${id} ${report} (${text.length} characters); read as no calls`,
    ]);
  });

  it('fails a turn waiting for its question when its calls are lost, without asking the model', async () => {
    const { provider, runtime, restart, database } = fixture();
    const question = { id: 'call_ask', name: 'ask_clarification', arguments: '{"question":"Which region?"}' };
    provider.enqueue({ kind: 'answer', toolCalls: [question] }, { kind: 'answer', content: 'Deploying to EU.' });
    const ctx = context('job_1', openAiAgent({ baseUrl: served.baseUrl }));
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Deploy'), context: ctx });
    expect(await settle(runtime, runId, ctx)).toMatchObject({ state: 'waiting' });
    await runtime.dispose();
    const id = await damage(database, BROKEN);

    // The person answers after a restart: the answer is to a call that no longer reads.
    const again = restart();
    try {
      const response = {
        runKey: 'job_1:r1',
        inputRequestId: 'job_1:call_ask',
        kind: 'CLARIFICATION' as const,
        value: 'EU',
        clientRequestId: 'c1',
      };
      const resumed = await again.resume({ runKey: 'job_1:r1', runId, response, context: ctx });
      const ended = await settle(again, resumed.runId, ctx);
      expect(ended).toEqual(LOST);
      // The job fails with the contract's code for lost state, not RUNTIME_ERROR.
      expect(outcomeCommand(JobPhase.RUNNING, ended)).toEqual({ type: 'FAIL', error: LOST.error, code: LOST.code });
    } finally {
      await again.dispose();
    }
    expect(provider.requests).toHaveLength(1);
    expect(await reportsOf(id)).toEqual([
      `openai_messages.tool_calls_json of ${id} does not read as JSON (${BROKEN.length} characters); read as no calls`,
    ]);
  });

  it('fails a run replayed after a restart whose last answer lost its calls, instead of completing it', async () => {
    const { provider, runtime, restart, database } = fixture();
    provider.enqueue(
      { kind: 'answer', toolCalls: [{ id: 'call_ctx', name: 'read_team_context', arguments: '{}' }] },
      { kind: 'answer', content: 'final' },
    );
    const stuck = new StuckTools();
    const agent = openAiAgent({ baseUrl: served.baseUrl });
    const ctx = context('job_1', agent, stuck);
    const { runId } = await runtime.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: ctx });
    await until(() => provider.requests.length === 1 && stuck.started, 'the tool call to start');
    // The process dies while the tool runs (its answer is durable), and the row is damaged.
    void runtime.dispose();
    const id = await damage(database, WRONG_SHAPE);

    const again = restart();
    const tools = new RecordingTools({ read_team_context: { goal: 'Ship it' } });
    const replay = context('job_1', agent, tools);
    try {
      expect(await again.start({ runKey: 'job_1', input: requestInput('job_1', 'Go'), context: replay })).toEqual({
        runId,
      });
      expect(await settle(again, runId, replay)).toEqual(LOST);
    } finally {
      await again.dispose();
    }
    expect(provider.requests).toHaveLength(1);
    expect(tools.calls).toEqual([]);
    expect(await reportsOf(id)).toEqual([
      `openai_messages.tool_calls_json of ${id} is not a list of tool calls (${WRONG_SHAPE.length} characters); read as no calls`,
    ]);
  });
});
