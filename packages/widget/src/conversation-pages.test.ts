import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from './api.js';
import { type ConversationMessageView, createConversationPages } from './conversation-pages.js';

const endpoint = 'http://widget.test/graphql';
const message = (n: number): ConversationMessageView => ({
  id: `msg${n}`,
  role: n % 2 ? 'USER' : 'ASSISTANT',
  text: `text ${n}`,
  toolName: null,
  createdAt: '2026-11-30T04:00:00.000Z',
});
/** The conversation on the server: grows while the test runs. */
let stored: ConversationMessageView[] = [];
const PAGE = 3;
const reads: (string | null)[] = [];
let gone = false;
const server = setupServer(
  graphql.link(endpoint).query('Conversation', ({ variables }) => {
    reads.push((variables.after as string | null) ?? null);
    if (gone) return HttpResponse.json({ data: { node: null } });
    const from = variables.after ? Number(String(variables.after).slice(1)) : 0;
    const page = stored.slice(from, from + PAGE);
    return HttpResponse.json({
      data: {
        node: {
          id: variables.id,
          conversation: {
            pageInfo: {
              hasNextPage: from + PAGE < stored.length,
              endCursor: page.length ? `c${from + page.length}` : null,
            },
            edges: page.map((node) => ({ cursor: node.id, node })),
          },
        },
      },
    });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  reads.length = 0;
  gone = false;
});
afterAll(() => server.close());

describe('createConversationPages', () => {
  it('reads oldest first, page by page, then what was appended after the last cursor', async () => {
    stored = [1, 2, 3, 4, 5].map(message);
    const api = createApi({ endpoint, token: async () => 't' });
    const pages = createConversationPages(api, 'member_1');
    await pages.more();
    expect(pages.messages().map((m) => m.id)).toEqual(['msg1', 'msg2', 'msg3']);
    expect([pages.hasMore(), pages.loaded()]).toEqual([true, true]);
    await pages.more();
    expect(pages.messages().map((m) => m.id)).toEqual(['msg1', 'msg2', 'msg3', 'msg4', 'msg5']);
    expect(pages.hasMore()).toBe(false);
    // At the end nothing new: an empty page keeps the cursor, so the next read starts there.
    await pages.more();
    stored.push(message(6));
    await pages.more();
    expect(
      pages
        .messages()
        .map((m) => m.id)
        .slice(-2),
    ).toEqual(['msg5', 'msg6']);
    expect(reads).toEqual([null, 'c3', 'c5', 'c5']);
    api.dispose();
  });

  it('folds calls made during a read into one more read, never appending a page twice', async () => {
    stored = [1, 2].map(message);
    const api = createApi({ endpoint, token: async () => 't' });
    const pages = createConversationPages(api, 'member_1');
    await Promise.all([pages.more(), pages.more(), pages.more()]);
    expect(reads).toEqual([null, 'c2']);
    expect(pages.messages().map((m) => m.id)).toEqual(['msg1', 'msg2']);
    api.dispose();
  });

  it('reports a member that is gone (another owner, a deleted team) as NOT_FOUND', async () => {
    gone = true;
    const api = createApi({ endpoint, token: async () => 't' });
    const pages = createConversationPages(api, 'member_x');
    await pages.more();
    expect([pages.failure(), pages.loaded(), pages.messages()]).toEqual(['NOT_FOUND', false, []]);
    api.dispose();
  });
});
