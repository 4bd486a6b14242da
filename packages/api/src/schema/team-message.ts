import {
  asMessageId,
  type Core,
  MessageDelivery,
  type OwnerId,
  type TeamEvent,
  TeamEventKind,
  type TeamMessage,
} from '@agent-teams/core';
import type { Builder } from './builder.js';
import { addConnection } from './connection.js';
import { type ApiContext, requireViewer } from './context.js';
import type { Loaders } from './loaders.js';
import type { Refs } from './refs.js';
import type { TeamEventView } from './views.js';

/**
 * Adds the mailbox: `TeamMessage`, `MessageDelivery`, `Team.messages`, `Member.mailbox`,
 * `sendMessage`, and the `MessageSent`/`MessageDelivered` team events.
 */
export function addTeamMessages(builder: Builder, refs: Refs): void {
  const Delivery = builder.enumType(MessageDelivery, { name: 'MessageDelivery' });
  const member = async (ctx: ApiContext, id: string) => {
    const found = await ctx.loaders.members.load(id as never);
    if (found === null) throw new Error(`member ${id} of a team message is missing`);
    return found;
  };
  refs.TeamMessage.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'delivery' in value,
    fields: (t) => ({
      id: t.exposeID('id'),
      from: t.field({
        type: refs.Member,
        nullable: true,
        description: 'null when a person sent it.',
        resolve: (message, _args, ctx) => (message.fromMemberId === null ? null : member(ctx, message.fromMemberId)),
      }),
      to: t.field({
        type: [refs.Member],
        resolve: (message, _args, ctx) => Promise.all(message.recipientIds.map((id) => member(ctx, id))),
      }),
      text: t.exposeString('text'),
      delivery: t.field({ type: Delivery, resolve: (message) => message.delivery }),
      createdAt: t.field({ type: 'DateTime', resolve: (message) => message.createdAt }),
    }),
  });
  const Connection = addConnection(builder, refs.PageInfo, 'TeamMessage', refs.TeamMessage);

  builder.objectField(refs.Team, 'messages', (t) =>
    t.field({
      type: Connection,
      description: 'Team messages, oldest first.',
      args: { first: t.arg.int({ defaultValue: 50 }), after: t.arg.string() },
      resolve: (team, args, ctx) => ctx.core.messages.list(team, args),
    }),
  );
  builder.objectField(refs.Member, 'mailbox', (t) =>
    t.field({
      type: [refs.TeamMessage],
      description: 'Messages not yet delivered into a turn of this member, oldest first.',
      resolve: (m, _args, ctx) => ctx.core.messages.mailbox(m.id),
    }),
  );

  const SendMessageInput = builder.inputType('SendMessageInput', {
    fields: (t) => ({
      teamId: t.id({ required: true }),
      memberIds: t.idList({ required: true }),
      text: t.string({ required: true }),
      delivery: t.field({ type: Delivery, required: true }),
      clientRequestId: t.string({ required: true }),
    }),
  });
  const SendMessagePayload = builder.objectRef<{ readonly message: TeamMessage }>('SendMessagePayload').implement({
    fields: (t) => ({ message: t.field({ type: refs.TeamMessage, resolve: (payload) => payload.message }) }),
  });
  builder.mutationField('sendMessage', (t) =>
    t.field({
      type: SendMessagePayload,
      description: 'Messages members of your team, quietly or as a follow-up; idempotent by clientRequestId.',
      args: { input: t.arg({ type: SendMessageInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        message: await ctx.core.messages.send(requireViewer(ctx), {
          ...input,
          teamId: String(input.teamId),
          memberIds: input.memberIds.map(String),
        }),
      }),
    }),
  );

  builder.objectRef<Extract<TeamEventView, { __typename: 'MessageSent' }>>('MessageSent').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ message: t.field({ type: refs.TeamMessage, resolve: (event) => event.message }) }),
  });
  builder.objectRef<Extract<TeamEventView, { __typename: 'MessageDelivered' }>>('MessageDelivered').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({
      message: t.field({ type: refs.TeamMessage, resolve: (event) => event.message }),
      member: t.field({ type: refs.Member, resolve: (event) => event.member }),
      job: t.field({ type: refs.Job, resolve: (event) => event.job }),
    }),
  });
}

/** The view of a MESSAGE_SENT or MESSAGE_DELIVERED event; null when what it names is gone. */
export async function messageEventView(
  core: Core,
  loaders: Loaders,
  event: TeamEvent,
  base: Pick<Extract<TeamEventView, { __typename: 'MessageSent' }>, 'seq' | 'team'>,
): Promise<TeamEventView | null> {
  const [message] = event.messageId ? await core.load.messages([event.messageId]) : [];
  if (message === undefined) return null;
  if (event.kind === TeamEventKind.MESSAGE_SENT) return { __typename: 'MessageSent', ...base, message };
  const member = event.memberId ? await loaders.members.load(event.memberId) : null;
  const job = event.jobId ? await loaders.jobs.load(event.jobId) : null;
  return member && job && { __typename: 'MessageDelivered', ...base, message, member, job };
}

/** `node(id)` for a message id: the message when its team is the owner's, else null. */
export async function loadMessageNode(ctx: ApiContext, owner: OwnerId, id: string): Promise<TeamMessage | null> {
  const [message] = await ctx.core.load.messages([asMessageId(id)]);
  if (message === undefined || (await ctx.core.teams.get(owner, message.teamId)) === null) return null;
  return message;
}
