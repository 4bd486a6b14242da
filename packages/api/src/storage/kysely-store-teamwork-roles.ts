import type {
  ChangeTaskArgs,
  ConversationId,
  ConversationMessage,
  Mailbox,
  MemberId,
  NewConversationMessage,
  OwnerId,
  ReserveSpendArgs,
  SeqPage,
  SeqPageRequest,
  SpendDecision,
  Task,
  TaskChange,
  TaskFilter,
  TaskId,
  Team,
  TeamBudget,
  TeamBudgetLimits,
  TeamId,
  UsageEntry,
  UsageScope,
  UsageTotals,
} from '@agent-teams/core';
import * as budgets from './budgets.js';
import * as conversations from './conversations.js';
import { KyselyJobRoles } from './kysely-store-job-roles.js';
import * as mailbox from './mailbox.js';
import * as taskBoard from './task-board.js';
import * as usage from './usage.js';
import { runWrite } from './write-transaction.js';

/** The teamwork roles of the Kysely store: `UsageLedger`, `ConversationLog`, `Budgets`, `Mailbox` and `Tasks`. */
export class KyselyTeamworkRoles extends KyselyJobRoles {
  // ---- UsageLedger and ConversationLog ------------------------------------------------------

  // ---- Budgets ------------------------------------------------------------------------------

  setTeamBudget(owner: OwnerId, teamId: TeamId, limits: TeamBudgetLimits, now: string): Promise<Team> {
    return runWrite(this.ctx, now, (scope) => budgets.setTeamBudget(scope, owner, teamId, limits));
  }

  teamBudgets(teamIds: readonly TeamId[]): Promise<ReadonlyMap<TeamId, TeamBudget>> {
    return budgets.teamBudgets(this.ctx.db, teamIds);
  }

  async reserveSpend(args: ReserveSpendArgs): Promise<SpendDecision> {
    if (await budgets.noBudgetApplies(this.ctx.db, args)) return { ok: true, held: false };
    return runWrite(this.ctx, args.now, (scope) => budgets.reserveSpend(scope, args));
  }

  releaseSpend(reservationId: string, holder?: string): Promise<void> {
    return budgets.releaseSpend(this.ctx.db, reservationId, holder);
  }

  recordUsage(entry: UsageEntry, now: string): Promise<void> {
    return usage.insertUsage(this.ctx.db, entry, now);
  }

  usageTotals(scopes: readonly UsageScope[]): Promise<ReadonlyMap<string, UsageTotals>> {
    return usage.usageTotals(this.ctx.db, scopes);
  }

  appendConversation(
    conversationId: ConversationId,
    messages: readonly NewConversationMessage[],
    now: string,
  ): Promise<void> {
    return conversations.appendConversation(this.ctx.db, conversationId, messages, now);
  }

  listConversation(conversationId: ConversationId, page: SeqPageRequest): Promise<SeqPage<ConversationMessage>> {
    return conversations.listConversation(this.ctx.db, conversationId, page);
  }

  // ---- Mailbox (storage/mailbox.ts) --------------------------------------------------------

  readonly sendMessage: Mailbox['sendMessage'] = (args) =>
    runWrite(this.ctx, args.now, (scope) => mailbox.sendMessage(scope, args), { retryOnUniqueViolation: true });
  readonly pageMessages: Mailbox['pageMessages'] = (teamId, page) => mailbox.pageMessages(this.ctx.db, teamId, page);
  readonly findMessages: Mailbox['findMessages'] = (ids) => mailbox.findMessages(this.ctx.db, ids);
  readonly undeliveredMessages: Mailbox['undeliveredMessages'] = (id) => mailbox.undeliveredMessages(this.ctx.db, id);
  readonly messageDeliveries: Mailbox['messageDeliveries'] = async (ids) =>
    mailbox.messageDeliveries(this.ctx.db, await mailbox.findMessages(this.ctx.db, ids));
  // ---- Tasks --------------------------------------------------------------------------------

  changeTask(args: ChangeTaskArgs): Promise<TaskChange> {
    return runWrite(this.ctx, args.now, (scope) => taskBoard.changeTask(scope, args));
  }

  listTasks(teamId: TeamId, filter: TaskFilter, page: SeqPageRequest): Promise<SeqPage<Task> & { totalCount: number }> {
    return taskBoard.listTasks(this.ctx.db, teamId, filter, page);
  }

  findTasks(taskIds: readonly TaskId[]): Promise<readonly Task[]> {
    return taskBoard.findTasks(this.ctx.db, taskIds);
  }

  releaseClaims(teamId: TeamId, memberId: MemberId | null, reason: string, now: string): Promise<readonly Task[]> {
    return runWrite(this.ctx, now, async (scope) => {
      if ((await scope.lockTeam(teamId)) === undefined) return [];
      return taskBoard.releaseClaimsIn(scope, teamId, memberId, reason);
    });
  }
}
