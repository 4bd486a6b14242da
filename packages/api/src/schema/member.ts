import type { Builder } from './builder.js';
import { memberLabel } from './member-label.js';
import type { Refs } from './refs.js';

/** Adds `Member`: a named agent of a team, with its own persistent conversation. */
export function addMember(_builder: Builder, refs: Refs): void {
  refs.Member.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'position' in value,
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name', { description: 'Unique within the team, permanent.' }),
      label: t.string({
        description: 'Mention label, unique within the team, at most 120 UTF-16 units.',
        resolve: async (member, _args, ctx) => memberLabel(member, await ctx.loaders.teamMembers.load(member.teamId)),
      }),
      agent: t.field({
        type: refs.Agent,
        resolve: async (member, _args, ctx) =>
          // An agent removed from the config still names the member's agent; never fail the roster.
          (await ctx.loaders.agents.load(member.agentId)) ?? {
            id: member.agentId,
            name: member.agentId,
            title: member.agentId,
            description: 'No longer in the agent catalog.',
            runtime: 'unknown',
            timeoutMs: 0,
            settings: {},
          },
      }),
      conversationId: t.exposeString('conversationId', { description: "The member's own persistent conversation." }),
      role: t.exposeString('role', { nullable: true }),
      isLead: t.exposeBoolean('isLead'),
      status: t.field({
        type: refs.MemberStatus,
        resolve: (member, _args, ctx) => ctx.loaders.memberStatuses.load(member),
      }),
      team: t.field({
        type: refs.Team,
        resolve: async (member, _args, ctx) => {
          const team = await ctx.loaders.teams.load(member.teamId);
          if (team === null) throw new Error(`team ${member.teamId} of member ${member.id} is missing`);
          return team;
        },
      }),
    }),
  });
}
