// Shared by scripted-runtime-answers/-lifecycle.test.ts (src/runtimes/scripted): one runtime over an in-memory database.
import {
  type AgentDefinition,
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asRunId,
  asTeamId,
  DomainError,
  type MemberToolPort,
  type NewConversationMessage,
  type RunContext,
  type RunState,
  type TurnInput,
} from '@agent-teams/core';
import { afterEach, beforeEach } from 'vitest';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';

const agent: AgentDefinition = {
  id: asAgentId('researcher'),
  name: 'researcher',
  title: 'Research',
  description: 'd',
  runtime: 'scripted',
  timeoutMs: 180_000,
  settings: {},
};
const refusingTools: MemberToolPort = {
  invoke: async (name) => {
    throw new DomainError('NOT_AVAILABLE_YET', `no ${name}`);
  },
};
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const clock = { nowMs: () => Date.now() };

/** The migrated in-memory database of the current test (opened before each by {@link useMemoryDatabase}). */
export let opened: OpenedDatabase;

/** Opens a fresh migrated in-memory database before each test of the file, and closes it after. */
export function useMemoryDatabase(): void {
  beforeEach(async () => {
    opened = await openDatabase(':memory:');
    await migrateToLatest(opened.db, opened.dialect);
  });
  afterEach(async () => {
    await opened.close();
  });
}

/**
 * The conversation the runtime wrote, one entry per append (rows of one transaction share their
 * conversation, job and timestamp), oldest first.
 */
export async function appendedRows(): Promise<{ conversationId: string; messages: NewConversationMessage[] }[]> {
  const rows = await opened.db.selectFrom('conversation_messages').selectAll().orderBy('seq').execute();
  const groups: { key: string; conversationId: string; messages: NewConversationMessage[] }[] = [];
  for (const row of rows) {
    const key = `${row.conversation_id} ${row.job_id} ${row.created_at}`;
    const message = {
      role: row.role,
      text: row.text,
      toolName: row.tool_name,
      jobId: row.job_id,
    } as NewConversationMessage;
    const last = groups.at(-1);
    if (last?.key === key) last.messages.push(message);
    else groups.push({ key, conversationId: row.conversation_id, messages: [message] });
  }
  return groups.map(({ conversationId, messages }) => ({ conversationId, messages }));
}

/** A runtime over the current database (a silent logger, 1 ms between streamed deltas). */
export function makeRuntime(): ScriptedRuntime {
  return new ScriptedRuntime({ db: opened.db, dialect: opened.dialect, clock, logger: silent, streamIntervalMs: 1 });
}

/** The context of job `jobId` (member_1 of team_1, the researcher); `tools` refuse every call unless given. */
export function context(jobId: string, tools: MemberToolPort = refusingTools): RunContext {
  return {
    teamId: asTeamId('team_1'),
    jobId: asJobId(jobId),
    memberId: asMemberId('member_1'),
    conversationId: asConversationId('conversation_1'),
    agent,
    tools,
  };
}

/** A turn of job `jobId` of kind `kind` carrying `text`. */
export function input(jobId: string, text: string, kind: TurnInput['kind'] = 'request'): TurnInput {
  return {
    kind,
    jobId: asJobId(jobId),
    teamId: asTeamId('team_1'),
    text,
    memberName: 'Research',
    requesterName: null,
    receipt: null,
    context: null,
  };
}

/** Polls run `runId` until it is no longer running (or 5 s passed). */
export async function settle(runtime: ScriptedRuntime, runId: string, jobId: string): Promise<RunState> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const state = await runtime.poll({ runId: asRunId(runId), context: context(jobId) });
    if (state.state !== 'running' || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The stored run rows: their key and state. */
export async function runRows(): Promise<{ run_key: string; state: string }[]> {
  return opened.db.selectFrom('runtime_runs').select(['run_key', 'state']).execute();
}
