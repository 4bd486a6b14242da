import type { GraphQLSchema } from 'graphql';
import { addActivity } from './activity.js';
import { addAgent } from './agent.js';
import { addBudget } from './budget.js';
import { createBuilder } from './builder.js';
import { addConversation } from './conversation.js';
import { addInbox } from './inbox.js';
import { addJob } from './job.js';
import { addJobErrorCode } from './job-error-code.js';
import { addJobMutations } from './job-mutations.js';
import { addJobProgress } from './job-progress.js';
import { addLifecycle } from './lifecycle.js';
import { addMember } from './member.js';
import { addMention } from './mention.js';
import { addNode } from './node.js';
import { addRecord } from './record.js';
import { createRefs } from './refs.js';
import { addTasks } from './task.js';
import { addTeam } from './team.js';
import { addTeamEvents } from './team-events.js';
import { addTeamMessages } from './team-message.js';
import { addTeamTool } from './team-tool.js';
import { addUsage } from './usage.js';
import { addViewer } from './viewer.js';

export type { ApiContext } from './context.js';
export { createApiContext } from './context.js';

/**
 * Builds the public GraphQL schema (`schema.graphql` is its printed form).
 *
 * @remarks Each call builds a fresh, stateless schema; all state arrives through the context.
 */
export function buildSchema(): GraphQLSchema {
  const builder = createBuilder();
  builder.queryType({});
  builder.mutationType({});
  builder.subscriptionType({});
  const refs = createRefs(builder);
  for (const add of [
    addNode,
    addViewer,
    addAgent,
    addMention,
    addTeam,
    addMember,
    addConversation,
    addJob,
    addJobMutations,
    addActivity,
    addRecord,
    addTeamEvents,
    addTeamMessages,
    addInbox,
    addJobProgress,
    addUsage,
    addTasks,
    addLifecycle,
    addJobErrorCode,
    addBudget,
  ]) {
    add(builder, refs);
  }
  addTeamTool(builder);
  return builder.toSchema({ sortSchema: false });
}
