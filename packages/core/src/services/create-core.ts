import { agentService } from './agent-service.js';
import { budgetService } from './budget-service.js';
import { conversationService } from './conversation-service.js';
import type { Core, CoreDeps } from './core-types.js';
import { eventService } from './event-service.js';
import { historyService, toolService } from './history-service.js';
import { jobService } from './job-service.js';
import { findJobViews } from './job-views.js';
import { lifecycleService } from './lifecycle-owner.js';
import { mentionService } from './mention-service.js';
import { messageService } from './message-service.js';
import { requestService } from './request-service.js';
import { taskService } from './task-service.js';
import { teamService } from './team-service.js';
import { usageService } from './usage-service.js';

/**
 * Builds the application's use cases from their ports. Holds no state of its own: everything
 * durable is in the store, so two cores over one database behave as one.
 */
export function createCore(deps: CoreDeps): Core {
  const { store } = deps;
  return {
    teams: teamService(deps),
    requests: requestService(deps),
    messages: messageService(deps),
    lifecycle: lifecycleService(deps),
    jobs: jobService(deps),
    agents: agentService(deps),
    mentions: mentionService(deps),
    conversations: conversationService(deps),
    usage: usageService(deps),
    budgets: budgetService(deps),
    events: eventService(deps),
    tools: toolService(deps),
    history: historyService(deps),
    tasks: taskService(deps),
    load: {
      jobs: (ids) => findJobViews(store, ids),
      members: (ids) => store.findMembers(ids),
      teams: (ids) => store.findTeams(ids),
      records: (ids) => store.findRecords(ids),
      messages: (ids) => store.findMessages(ids),
      tasks: (ids) => store.findTasks(ids),
    },
  };
}
