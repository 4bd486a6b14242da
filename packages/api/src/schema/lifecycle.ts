import type { Job, Member, Team } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';
import type { TeamEventView } from './views.js';

/**
 * Adds the team lifecycle (decision 0165): the owner's `spawnMember`, `retireMember`,
 * `closeTeam` and `interruptMember` (the owner may always act as the lead), and the
 * `MemberSpawned`, `MemberRetired` and `TeamClosed` events of `teamEvents`.
 */
export function addLifecycle(builder: Builder, refs: Refs): void {
  const SpawnMemberInput = builder.inputType('SpawnMemberInput', {
    fields: (t) => ({
      teamId: t.id({ required: true }),
      name: t.string({ required: true }),
      agentId: t.id({ required: true }),
      role: t.string({ description: "Free text shown in the roster, the team context and the member's instructions." }),
      context: t.string({
        defaultValue: 'fresh',
        description: "fresh (default) or fork (starts with the lead's completed turns).",
      }),
      clientRequestId: t.string({ required: true, description: 'Idempotency key: the same key spawns once.' }),
    }),
  });
  const RetireMemberInput = builder.inputType('RetireMemberInput', {
    fields: (t) => ({ memberId: t.id({ required: true }) }),
  });
  const CloseTeamInput = builder.inputType('CloseTeamInput', { fields: (t) => ({ teamId: t.id({ required: true }) }) });
  const InterruptMemberInput = builder.inputType('InterruptMemberInput', {
    fields: (t) => ({ memberId: t.id({ required: true }), reason: t.string({ required: true }) }),
  });
  const memberPayload = (name: string) =>
    builder.objectRef<{ readonly member: Member }>(name).implement({
      fields: (t) => ({ member: t.field({ type: refs.Member, resolve: (payload) => payload.member }) }),
    });
  const SpawnMemberPayload = memberPayload('SpawnMemberPayload');
  const RetireMemberPayload = memberPayload('RetireMemberPayload');
  const CloseTeamPayload = builder.objectRef<{ readonly team: Team }>('CloseTeamPayload').implement({
    fields: (t) => ({ team: t.field({ type: refs.Team, resolve: (payload) => payload.team }) }),
  });
  const InterruptMemberPayload = builder.objectRef<{ readonly job: Job | null }>('InterruptMemberPayload').implement({
    fields: (t) => ({
      job: t.field({
        type: refs.Job,
        nullable: true,
        description: 'The cancelled job; null when the member was idle.',
        resolve: (payload) => payload.job,
      }),
    }),
  });

  builder.mutationFields((t) => ({
    spawnMember: t.field({
      type: SpawnMemberPayload,
      args: { input: t.arg({ type: SpawnMemberInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        member: await ctx.core.lifecycle.spawn(requireViewer(ctx), {
          ...input,
          teamId: String(input.teamId),
          agentId: String(input.agentId),
        }),
      }),
    }),
    retireMember: t.field({
      type: RetireMemberPayload,
      args: { input: t.arg({ type: RetireMemberInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        member: await ctx.core.lifecycle.retire(requireViewer(ctx), String(input.memberId)),
      }),
    }),
    closeTeam: t.field({
      type: CloseTeamPayload,
      args: { input: t.arg({ type: CloseTeamInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        team: await ctx.core.lifecycle.close(requireViewer(ctx), String(input.teamId)),
      }),
    }),
    interruptMember: t.field({
      type: InterruptMemberPayload,
      args: { input: t.arg({ type: InterruptMemberInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        job: await ctx.core.lifecycle.interrupt(requireViewer(ctx), String(input.memberId), input.reason),
      }),
    }),
  }));

  const eventType = <K extends TeamEventView['__typename']>(name: K) =>
    builder.objectRef<Extract<TeamEventView, { __typename: K }>>(name);
  eventType('MemberSpawned').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ member: t.field({ type: refs.Member, resolve: (event) => event.member }) }),
  });
  eventType('MemberRetired').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ member: t.field({ type: refs.Member, resolve: (event) => event.member }) }),
  });
  eventType('TeamClosed').implement({ interfaces: [refs.TeamEvent], fields: () => ({}) });
}
