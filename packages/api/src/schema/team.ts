import { asTeamId, type Team } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/**
 * Adds `Team`, `TeamCapacity`, `Query.team` and the team mutations (`createTeam`,
 * `reconnectTeam`, `deleteTeam`).
 *
 * @remarks A `Team` value only ever comes from an owner-scoped read, so its fields pass it to the
 * core without checking the owner again.
 */
export function addTeam(builder: Builder, refs: Refs): void {
  refs.Team.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'goal' in value,
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      goal: t.exposeString('goal'),
      status: t.field({ type: refs.TeamStatus, resolve: (team) => team.status }),
      revision: t.string({
        description: 'Changes whenever anything a client can see of the team changes.',
        resolve: (team) => String(team.revision),
      }),
      lastEventSeq: t.exposeInt('lastEventSeq', {
        description:
          "The seq of the team's newest event (0 before any): subscribe to teamEvents with afterSeq set to it to get only what happens after this read.",
      }),
      createdAt: t.field({ type: 'DateTime', resolve: (team) => team.createdAt }),
      members: t.field({
        type: [refs.Member],
        description: 'Roster order; fixed for the life of the team.',
        resolve: (team, _args, ctx) => ctx.loaders.teamMembers.load(team.id),
      }),
      lead: t.field({
        type: refs.Member,
        nullable: true,
        resolve: async (team, _args, ctx) =>
          (await ctx.loaders.teamMembers.load(team.id)).find((member) => member.isLead) ?? null,
      }),
      capacity: t.field({ type: refs.TeamCapacity, resolve: (team, _args, ctx) => ctx.core.teams.capacity(team) }),
    }),
  });

  refs.TeamCapacity.implement({
    fields: (t) => ({
      requests: t.exposeInt('requests'),
      requestLimit: t.exposeInt('requestLimit'),
      receipts: t.exposeInt('receipts'),
      receiptLimit: t.exposeInt('receiptLimit'),
      chainLimit: t.exposeInt('chainLimit'),
    }),
  });

  builder.queryField('team', (t) =>
    t.field({
      type: refs.Team,
      nullable: true,
      description: 'Null when absent or owned by someone else (no existence leak).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.core.teams.get(requireViewer(ctx), asTeamId(String(args.id))),
    }),
  );

  addTeamMutations(builder, refs);
}

function addTeamMutations(builder: Builder, refs: Refs): void {
  const MemberInput = builder.inputType('MemberInput', {
    fields: (t) => ({
      name: t.string({
        required: true,
        description: 'Display name within the team: 1–80 characters, at most 160 UTF-8 bytes.',
      }),
      agentId: t.id({ required: true }),
      role: t.string({
        description: "Free text shown in the roster, the team context and the member's instructions; 1–200 chars.",
      }),
      lead: t.boolean({ defaultValue: false, description: 'At most one member per team (LEAD_COUNT).' }),
    }),
  });
  const CreateTeamInput = builder.inputType('CreateTeamInput', {
    fields: (t) => ({
      clientRequestId: t.string({
        required: true,
        description: 'Idempotency key: the same key returns the same team.',
      }),
      name: t.string({ required: true }),
      goal: t.string({ required: true }),
      members: t.field({ type: [MemberInput], required: true }),
    }),
  });
  const TeamIdInput = (name: string) =>
    builder.inputType(name, { fields: (t) => ({ teamId: t.id({ required: true }) }) });
  const ReconnectTeamInput = TeamIdInput('ReconnectTeamInput');
  const DeleteTeamInput = TeamIdInput('DeleteTeamInput');
  const TeamPayload = (name: string) =>
    builder.objectRef<{ readonly team: Team }>(name).implement({
      fields: (t) => ({ team: t.field({ type: refs.Team, resolve: (payload) => payload.team }) }),
    });
  const CreateTeamPayload = TeamPayload('CreateTeamPayload');
  const ReconnectTeamPayload = TeamPayload('ReconnectTeamPayload');
  const DeleteTeamPayload = builder.objectRef<{ readonly deletedTeamId: string }>('DeleteTeamPayload').implement({
    fields: (t) => ({ deletedTeamId: t.exposeID('deletedTeamId') }),
  });

  builder.mutationFields((t) => ({
    createTeam: t.field({
      type: CreateTeamPayload,
      args: { input: t.arg({ type: CreateTeamInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({ team: await ctx.core.teams.create(requireViewer(ctx), input) }),
    }),
    reconnectTeam: t.field({
      type: ReconnectTeamPayload,
      args: { input: t.arg({ type: ReconnectTeamInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        team: await ctx.core.teams.reconnect(requireViewer(ctx), String(input.teamId)),
      }),
    }),
    deleteTeam: t.field({
      type: DeleteTeamPayload,
      args: { input: t.arg({ type: DeleteTeamInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        deletedTeamId: await ctx.core.teams.delete(requireViewer(ctx), String(input.teamId)),
      }),
    }),
  }));
}
