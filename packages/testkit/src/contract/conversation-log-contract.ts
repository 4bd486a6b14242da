import { asConversationId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { at, type StoreHarness } from './store-harness.js';

/** Contract cases of `ConversationLog`: appended in order, paged oldest first, per conversation. */
export function describeConversationLogCases(h: () => StoreHarness): void {
  describe('conversations', () => {
    it('appends conversation messages and pages them oldest first', async () => {
      const conversation = asConversationId('conversation_a');
      const other = asConversationId('conversation_b');
      const texts = ['one', 'two', 'three', 'four', 'five'];
      await h().store.appendConversation(
        conversation,
        texts.slice(0, 3).map((text) => ({ role: 'USER' as const, text, toolName: null, jobId: null })),
        h().now(),
      );
      await h().store.appendConversation(
        other,
        [{ role: 'ASSISTANT', text: 'elsewhere', toolName: null, jobId: null }],
        h().now(),
      );
      await h().store.appendConversation(
        conversation,
        [
          { role: 'TOOL', text: 'four', toolName: 'send_member', jobId: null },
          { role: 'ASSISTANT', text: 'five', toolName: null, jobId: null },
        ],
        h().now(),
      );
      const first = await h().store.listConversation(conversation, { first: 2, afterSeq: null });
      expect(first.items.map((m) => m.text)).toEqual(['one', 'two']);
      expect(first.hasNextPage).toBe(true);
      const rest = await h().store.listConversation(conversation, { first: 10, afterSeq: at(first.items, 1).seq });
      expect(rest.items.map((m) => m.text)).toEqual(['three', 'four', 'five']);
      expect(rest.hasNextPage).toBe(false);
      expect(at(rest.items, 1)).toMatchObject({ role: 'TOOL', toolName: 'send_member', conversationId: conversation });
      expect(new Set([...first.items, ...rest.items].map((m) => m.id)).size).toBe(5);
      expect((await h().store.listConversation(other, { first: 10, afterSeq: null })).items.map((m) => m.text)).toEqual(
        ['elsewhere'],
      );
    });
  });
}
