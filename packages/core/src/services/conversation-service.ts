import { Limits } from '../limits/limits.js';
import { hashFilter } from '../pagination/cursor.js';
import type { ConversationLog } from '../ports/team-store.js';
import { type CursorScope, seqPageRequest, toConnection } from './connections.js';
import type { Core, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<ConversationLog>;

/** A conversation page holds up to 50 messages by default (a turn is input, tools and answer). */
const CONVERSATION_PAGE = { defaultSize: 50, maxSize: Limits.connectionPage.max };

/**
 * Builds the `conversations` use cases: a member's conversation, oldest first. The cursor is
 * bound to the conversation, so it cannot page another member's.
 */
export function conversationService(deps: Deps): Core['conversations'] {
  return {
    async list(member, page) {
      const scope: CursorScope = { kind: 'conversation', filter: hashFilter({ conversation: member.conversationId }) };
      const messages = await deps.store.listConversation(
        member.conversationId,
        seqPageRequest(page, scope, CONVERSATION_PAGE),
      );
      return toConnection(messages, (message) => message.seq, scope);
    },
  };
}
