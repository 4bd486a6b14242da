import type { Builder } from './builder.js';
import { addConnection } from './connection.js';
import type { Refs } from './refs.js';

/** Adds `ConversationMessage` and `Member.conversation` (a member's own conversation). */
export function addConversation(builder: Builder, refs: Refs): void {
  refs.ConversationMessage.implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      role: t.field({ type: refs.MessageRole, resolve: (message) => message.role }),
      text: t.exposeString('text', { nullable: true }),
      toolName: t.exposeString('toolName', {
        nullable: true,
        description: 'Set on an ASSISTANT message that called a tool, and on the TOOL message answering it.',
      }),
      job: t.field({
        type: refs.Job,
        nullable: true,
        description: 'The job whose turn wrote it.',
        resolve: (message, _args, ctx) => (message.jobId ? ctx.loaders.jobs.load(message.jobId) : null),
      }),
      createdAt: t.field({ type: 'DateTime', resolve: (message) => message.createdAt }),
    }),
  });
  const ConversationMessageConnection = addConnection(
    builder,
    refs.PageInfo,
    'ConversationMessage',
    refs.ConversationMessage,
  );

  builder.objectField(refs.Member, 'conversation', (t) =>
    t.field({
      type: ConversationMessageConnection,
      description: "The messages of that conversation, oldest first: every turn's input, answer and tool calls.",
      args: { first: t.arg.int({ defaultValue: 50 }), after: t.arg.string() },
      // A Member value only comes from an owner-scoped read, so its conversation is the owner's.
      resolve: (member, args, ctx) => ctx.core.conversations.list(member, args),
    }),
  );
}
