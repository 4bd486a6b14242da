import { randomUUID } from 'node:crypto';
import type { ConversationId, JobId, NewConversationMessage } from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { appendConversation } from '../../storage/conversations.js';
import type { Database, OpenAiMessagesTable } from '../../storage/database-types.js';
import type { ToolCall } from './member-tools.js';
import type { MessageDraft, PersistedMessage } from './openai-run-store.js';

/** Messages of consecutive steps from `firstStep`, written at `now`. */
export interface MessageBatch {
  readonly firstStep: number;
  readonly messages: readonly MessageDraft[];
  readonly now: string;
}

/**
 * Inserts one step's messages and their visible projection. With `unlessWritten`, a step another
 * execution already wrote is left alone and false returned (inside a transaction that must go on:
 * no unique violation, which aborts a PostgreSQL transaction).
 */
export async function writeMessages(
  trx: Kysely<Database>,
  runId: string,
  conversationId: ConversationId,
  jobId: JobId,
  firstStep: number,
  messages: readonly MessageDraft[],
  now: string,
  unlessWritten = false,
): Promise<boolean> {
  return writeMessageBatches(trx, runId, conversationId, jobId, [{ firstStep, messages, now }], unlessWritten);
}

/**
 * {@link writeMessages} for several batches of one run at once (a run's first messages and its
 * last step, when one write carries both): one insert into each table, each row stamped with its
 * batch's time, in batch order. With `unlessWritten`, false (and nothing visible written) when
 * any of the steps was written already.
 */
export async function writeMessageBatches(
  trx: Kysely<Database>,
  runId: string,
  conversationId: ConversationId,
  jobId: JobId,
  batches: readonly MessageBatch[],
  unlessWritten = false,
): Promise<boolean> {
  const rows = batches.flatMap(({ firstStep, messages, now }) =>
    messages.map((message, index) => ({
      id: `omsg_${randomUUID()}`,
      conversation_id: conversationId,
      run_id: runId,
      step: firstStep + index,
      job_id: jobId,
      role: message.role,
      content: message.content,
      tool_calls_json: message.toolCalls ? JSON.stringify(message.toolCalls) : null,
      tool_call_id: message.toolCallId,
      tool_name: message.toolName,
      created_at: now,
    })),
  );
  if (rows.length === 0) return true;
  const insert = trx.insertInto('openai_messages').values(rows);
  if (unlessWritten) {
    const inserted = await insert.onConflict((oc) => oc.columns(['run_id', 'step']).doNothing()).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== rows.length) return false;
  } else {
    await insert.execute();
  }
  const shown = batches.flatMap(({ messages, now }) =>
    messages.flatMap((message) => visible(message, jobId).map((entry) => ({ entry, now }))),
  );
  await appendConversation(
    trx,
    conversationId,
    shown.map(({ entry }) => entry),
    shown.map(({ now }) => now),
  );
  return true;
}

/** What `Member.conversation` shows of a message: its text, and one entry per tool call. */
function visible(message: MessageDraft, jobId: JobId): NewConversationMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'USER', text: message.displayText ?? message.content, toolName: null, jobId }];
    case 'tool':
      return [{ role: 'TOOL', text: message.content, toolName: message.toolName, jobId }];
    case 'assistant': {
      const text: NewConversationMessage[] =
        message.content !== null && message.content !== ''
          ? [{ role: 'ASSISTANT', text: message.content, toolName: null, jobId }]
          : [];
      const calls = (message.toolCalls ?? []).map(
        (call): NewConversationMessage => ({ role: 'ASSISTANT', text: call.arguments, toolName: call.name, jobId }),
      );
      return [...text, ...calls];
    }
  }
}

/** A seeded conversation entry (a forked member's copy of the lead's turns) as a model message. */
export function toSeedMessage(row: { readonly role: string; readonly text: string | null }): PersistedMessage {
  const role = row.role === 'ASSISTANT' ? 'assistant' : 'user';
  return { role, content: row.text, toolCalls: null, toolCallId: null, toolName: null, step: -1, runId: '' };
}

/** An `openai_messages` row as the turn loop reads it. */
export function toPersisted(row: Selectable<OpenAiMessagesTable>): PersistedMessage {
  return {
    role: row.role as PersistedMessage['role'],
    content: row.content,
    toolCalls: row.tool_calls_json === null ? null : (JSON.parse(row.tool_calls_json) as ToolCall[]),
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    step: row.step,
    runId: row.run_id,
  };
}
