import type { ConversationId, JobId, NewConversationMessage } from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { CompiledShapes } from '../../storage/compiled-statement.js';
import { appendConversation } from '../../storage/conversations.js';
import type { Database, OpenAiMessagesTable } from '../../storage/database-types.js';
import { orderedIdBody } from '../../storage/ordered-id.js';
import { rideWritesLeft } from '../../storage/pg-held-connection.js';
import { exactlyRows, RUN_ALREADY_ENDED } from '../../storage/pg-server-check.js';
import type { MessageDraft, PersistedMessage } from './openai-run-store.js';
import { readStoredToolCalls } from './stored-tool-calls.js';

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
  const values = batches.flatMap(({ firstStep, messages, now }) =>
    messages.flatMap((message, index) => [
      `omsg_${orderedIdBody()}`,
      conversationId,
      runId,
      firstStep + index,
      jobId,
      message.role,
      message.content,
      message.toolCalls ? JSON.stringify(message.toolCalls) : null,
      message.toolCallId,
      message.toolName,
      now,
    ]),
  );
  const count = values.length / MESSAGE_COLUMNS.length;
  if (count === 0) return true;
  const left = unlessWritten ? rideWritesLeft(trx) : undefined;
  if (left !== undefined) {
    // A carried end on PostgreSQL: left to the server, which refuses it when a step was written.
    const sent = MESSAGE_INSERTS.execute(
      trx,
      `refuse:${count}`,
      (db, marks) =>
        exactlyRows(
          db,
          messageInsert(db, marks, true).returning('id'),
          RUN_ALREADY_ENDED,
          marks.length / MESSAGE_COLUMNS.length,
        ),
      values,
    );
    left.defer(sent, () => undefined, true);
  } else if (!(await insertMessages(trx, values, count, unlessWritten))) {
    return false;
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

/**
 * Inserts `count` message rows (`values`); with `unlessWritten`, false when not all went in
 * (another execution of the run wrote one of these steps first).
 */
async function insertMessages(
  trx: Kysely<Database>,
  values: readonly unknown[],
  count: number,
  unlessWritten: boolean,
): Promise<boolean> {
  const result = await MESSAGE_INSERTS.execute(
    trx,
    `${unlessWritten ? 'unless' : 'plain'}:${count}`,
    (db, marks) => insertMessageRows(db, marks, unlessWritten),
    values,
  );
  return !unlessWritten || Number(result.numAffectedRows ?? 0n) === count;
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

/**
 * An `openai_messages` row as the turn loop reads it. Tool calls that no longer read are marked
 * lost: the message reads as one without calls (`stored-tool-calls.ts`).
 */
export function toPersisted(row: Selectable<OpenAiMessagesTable>): PersistedMessage {
  const toolCalls = row.tool_calls_json === null ? null : readStoredToolCalls(row.id, row.tool_calls_json);
  const message: PersistedMessage = {
    role: row.role as PersistedMessage['role'],
    content: row.content,
    toolCalls,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    step: row.step,
    runId: row.run_id,
  };
  return toolCalls === null && row.tool_calls_json !== null ? { ...message, toolCallsLost: true } : message;
}

/** The columns of one `openai_messages` row, in the order of the values handed over. */
const MESSAGE_COLUMNS = [
  'id',
  'conversation_id',
  'run_id',
  'step',
  'job_id',
  'role',
  'content',
  'tool_calls_json',
  'tool_call_id',
  'tool_name',
  'created_at',
] as const;

/** One planned insert per row count and kind (plain, unless written, refused by the server: `compiled-statement.ts`); a step writes a few rows. */
const MESSAGE_INSERTS = new CompiledShapes<never>(64);

/** The insert of `values.length / 11` messages; `unlessWritten`: none if a step is already stored. */
function insertMessageRows(db: Kysely<Database>, values: readonly unknown[], unlessWritten: boolean) {
  return messageInsert(db, values, unlessWritten) as never;
}

/** {@link insertMessageRows}, typed (for a `RETURNING`). */
function messageInsert(db: Kysely<Database>, values: readonly unknown[], unlessWritten: boolean) {
  const rows = [];
  for (let at = 0; at < values.length; at += MESSAGE_COLUMNS.length) {
    rows.push(Object.fromEntries(MESSAGE_COLUMNS.map((column, i) => [column, values[at + i]])));
  }
  const insert = db.insertInto('openai_messages').values(rows as never);
  return unlessWritten ? insert.onConflict((oc) => oc.columns(['run_id', 'step']).doNothing()) : insert;
}
