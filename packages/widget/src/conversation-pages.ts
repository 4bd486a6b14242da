import { createSignal } from 'solid-js';
import { type Api, CONVERSATION_QUERY, errorCode } from './api.js';

/** A message of a member's conversation (`ConversationMessage`). */
export interface ConversationMessageView {
  id: string;
  role: 'USER' | 'ASSISTANT' | 'TOOL';
  text: string | null;
  /** On an ASSISTANT message that called a tool and on the TOOL message answering it. */
  toolName: string | null;
  createdAt: string;
}

type ConversationData = {
  node: {
    conversation: {
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      edges: { node: ConversationMessageView }[];
    };
  } | null;
};

/**
 * A member's conversation read page by page, oldest first (the order `Member.conversation`
 * serves): `more()` appends the page after the last one read.
 *
 * @remarks The same call follows the conversation while it grows: at the end, `more()` reads
 * what was appended after the last cursor (nothing, cheaply, when nothing was). Calls made while
 * a read is on its way are folded into one more read after it, so a burst of updates costs two
 * reads at most and pages are never appended twice.
 */
export function createConversationPages(api: Api, memberId: string) {
  const [messages, setMessages] = createSignal<ConversationMessageView[]>([]);
  const [hasMore, setHasMore] = createSignal(false);
  const [loaded, setLoaded] = createSignal(false);
  /** The error code of the last read when it failed (NOT_FOUND: the member is gone). */
  const [failure, setFailure] = createSignal<string | null>(null);
  let cursor: string | null = null;
  let reading: Promise<void> | null = null;
  let again = false;

  const read = async () => {
    try {
      const data = await api.query<ConversationData>(CONVERSATION_QUERY, { id: memberId, after: cursor });
      if (!data.node) return setFailure('NOT_FOUND');
      const page = data.node.conversation;
      const known = new Set(messages().map((m) => m.id));
      const fresh = page.edges.map((edge) => edge.node).filter((m) => !known.has(m.id));
      if (fresh.length > 0) setMessages((list) => [...list, ...fresh]);
      // An empty page at the end has no cursor: keep the last one so the next read starts there.
      cursor = page.pageInfo.endCursor ?? cursor;
      setHasMore(page.pageInfo.hasNextPage);
      setFailure(null);
      setLoaded(true);
    } catch (error) {
      setFailure(errorCode(error));
    }
  };

  /** Reads the next page (or what was appended since the last read, at the end). */
  const more = (): Promise<void> => {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        await read();
      } while (again);
      reading = null;
    })();
    return reading;
  };

  return { messages, hasMore, loaded, failure, more };
}
