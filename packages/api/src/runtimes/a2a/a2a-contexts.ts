import { randomUUID } from 'node:crypto';
import type { ConversationId } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database-types.js';

/**
 * The A2A context of each member conversation (`a2a_contexts`): every turn of a conversation is
 * one message in that context, so the remote agent keeps its own history of the member's work.
 */
export class A2aContexts {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The conversation's A2A context, minted (and stored) on first use. */
  async contextOf(conversationId: ConversationId, now: string): Promise<string> {
    await this.#db
      .insertInto('a2a_contexts')
      .values({ conversation_id: conversationId, context_id: `ctx-${randomUUID()}`, updated_at: now })
      .onConflict((conflict) => conflict.column('conversation_id').doNothing())
      .execute();
    const row = await this.#db
      .selectFrom('a2a_contexts')
      .select('context_id')
      .where('conversation_id', '=', conversationId)
      .executeTakeFirstOrThrow();
    return row.context_id;
  }

  /** Keeps the context the remote agent chose for the conversation (it may not take ours). */
  async adoptContext(conversationId: ConversationId, contextId: string, now: string): Promise<void> {
    await this.#db
      .updateTable('a2a_contexts')
      .set({ context_id: contextId, updated_at: now })
      .where('conversation_id', '=', conversationId)
      .execute();
  }
}
