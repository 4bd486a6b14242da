import { asAgentId, asJobId, asMemberId, asTaskId, asTeamId, type OwnerId } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import type { Refs } from './refs.js';
import { loadTask } from './task.js';
import { loadMessageNode } from './team-message.js';
import type { NodeShape } from './views.js';

/**
 * Adds the `Node` interface and `Query.node(id)`.
 *
 * @remarks Ids are the raw domain ids (`team_…`, `member_…`, `job_…`, or an agent's catalog
 * name), so `node` dispatches on the prefix instead of decoding a base64 global id.
 */
export function addNode(builder: Builder, refs: Refs): void {
  refs.Node.implement({
    fields: (t) => ({ id: t.exposeID('id') }),
    resolveType: (value) => nodeTypeOf(value),
  });

  builder.queryField('node', (t) =>
    t.field({
      type: refs.Node,
      nullable: true,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => loadNode(ctx, requireViewer(ctx), String(args.id)),
    }),
  );
}

/** The GraphQL type name of a node value, told apart by the fields only that type has. */
export function nodeTypeOf(value: NodeShape): 'Job' | 'Member' | 'Team' | 'Agent' | 'TeamMessage' | 'Task' {
  if ('delivery' in value) return 'TeamMessage';
  if ('dependsOn' in value) return 'Task';
  if ('phase' in value) return 'Job';
  if ('position' in value) return 'Member';
  if ('goal' in value) return 'Team';
  return 'Agent';
}

/** Loads the node an id names, or null when it is absent or another owner's. */
async function loadNode(ctx: ApiContext, owner: OwnerId, id: string): Promise<NodeShape | null> {
  if (id.startsWith('team_')) return ctx.core.teams.get(owner, asTeamId(id));
  if (id.startsWith('job_')) return ctx.core.jobs.get(owner, asJobId(id));
  if (id.startsWith('task_')) {
    const task = await loadTask(ctx, asTaskId(id));
    // Tasks are loaded unscoped; the owner check goes through their team.
    return task === null || (await ctx.core.teams.get(owner, task.teamId)) === null ? null : task;
  }
  if (id.startsWith('member_')) {
    const member = await ctx.loaders.members.load(asMemberId(id));
    // Members are loaded unscoped; the owner check goes through their team.
    if (member === null || (await ctx.core.teams.get(owner, member.teamId)) === null) return null;
    return member;
  }
  if (id.startsWith('message_')) return loadMessageNode(ctx, owner, id);
  return ctx.core.agents.get(asAgentId(id));
}
