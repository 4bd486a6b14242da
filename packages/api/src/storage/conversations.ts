import type {
  ConversationId,
  ConversationMessage,
  NewConversationMessage,
  SeqPage,
  SeqPageRequest,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { CompiledShapes } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { orderedIdBody } from './ordered-id.js';
import { writeThenCheck } from './pg-held-connection.js';
import { toConversationMessage } from './row-mappers.js';

/**
 * Appends messages to a member conversation, in order.
 *
 * @remarks Conversations belong to the runtime side, not to a team's visible state: no revision,
 * no team event, and they outlive their team. Ids are `message_` and an ordered body (time first:
 * `ordered-id.ts`, decision 0233), since the store has no id port and a seq-derived id would
 * need a second write.
 * @param now - the time of every message, or one time per message (one insert carrying writes
 * made at different times).
 */
export async function appendConversation(
  db: Kysely<Database>,
  conversationId: ConversationId,
  messages: readonly NewConversationMessage[],
  now: string | readonly string[],
): Promise<void> {
  if (messages.length === 0) return;
  if (typeof now !== 'string' && now.length !== messages.length) {
    throw new Error('[agent-teams/api] appendConversation needs one time per message');
  }
  const values = messages.flatMap((message, index) => [
    `message_${orderedIdBody()}`,
    conversationId,
    message.role,
    message.text,
    message.toolName,
    message.jobId,
    // One time for all, or each message's own (several writes carried by one insert).
    typeof now === 'string' ? now : (now[index] as string),
  ]);
  // Nothing reads the answer: on a held PostgreSQL connection, it goes with the statements after
  // it, the COMMIT too (a failure aborts the transaction, and the COMMIT answers ROLLBACK).
  await writeThenCheck(
    db,
    () => CONVERSATION_INSERTS.execute(db, String(messages.length), insertConversationRows, values),
    () => undefined,
    true,
  );
}

/** The columns of one `conversation_messages` row, in the order of the values handed over. */
const CONVERSATION_COLUMNS = ['id', 'conversation_id', 'role', 'text', 'tool_name', 'job_id', 'created_at'] as const;

/** The insert of `values.length / 7` messages (compiled once per count: `compiled-statement.ts`). */
function insertConversationRows(db: Kysely<Database>, values: readonly unknown[]) {
  const rows = [];
  for (let at = 0; at < values.length; at += CONVERSATION_COLUMNS.length) {
    rows.push(Object.fromEntries(CONVERSATION_COLUMNS.map((column, i) => [column, values[at + i]])));
  }
  return db.insertInto('conversation_messages').values(rows as never) as never;
}

/** One planned insert per message count (a write carries a few). */
const CONVERSATION_INSERTS = new CompiledShapes<never>(16);

/** A conversation's messages, oldest first, keyset-paged on seq. */
export async function listConversation(
  db: Kysely<Database>,
  conversationId: ConversationId,
  page: SeqPageRequest,
): Promise<SeqPage<ConversationMessage>> {
  let query = db.selectFrom('conversation_messages').selectAll().where('conversation_id', '=', conversationId);
  if (page.afterSeq !== null) query = query.where('seq', '>', page.afterSeq);
  const rows = await query
    .orderBy('seq')
    // Bound: a caller's page size (1–100); in the text it would add a statement per size to a
    // statement cache of 500 texts and could evict a turn's (decision 0231).
    .limit(page.first + 1)
    .execute();
  return { items: rows.slice(0, page.first).map(toConversationMessage), hasNextPage: rows.length > page.first };
}
