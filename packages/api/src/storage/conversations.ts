import { randomUUID } from 'node:crypto';
import type {
  ConversationId,
  ConversationMessage,
  NewConversationMessage,
  SeqPage,
  SeqPageRequest,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';
import { toConversationMessage } from './row-mappers.js';

/**
 * Appends messages to a member conversation, in order.
 *
 * @remarks Conversations belong to the runtime side, not to a team's visible state: no revision,
 * no team event, and they outlive their team. Ids are random (`message_<uuid>`), since the store
 * has no id port and a seq-derived id would need a second write.
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
  await db
    .insertInto('conversation_messages')
    .values(
      messages.map((message, index) => ({
        id: `message_${randomUUID()}`,
        conversation_id: conversationId,
        role: message.role,
        text: message.text,
        tool_name: message.toolName,
        job_id: message.jobId,
        // One time for all, or each message's own (several writes carried by one insert).
        created_at: typeof now === 'string' ? now : (now[index] as string),
      })),
    )
    .execute();
}

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
    .limit(page.first + 1)
    .execute();
  return { items: rows.slice(0, page.first).map(toConversationMessage), hasNextPage: rows.length > page.first };
}
