import type { Team, TeamBudget } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';
import { SATURATES, saturatedInt } from './saturated-int.js';

/**
 * Adds team budgets (contract `budgets.md`): `Team.budget` and
 * `setTeamBudget(input: { teamId, maxTokens, maxCost }) → { team }`.
 *
 * @remarks Limits are checked before every model call of the team's members; a call that could
 * pass one is not made and its job fails with `errorCode: BUDGET_EXHAUSTED`. Null limits: none.
 */
export function addBudget(builder: Builder, refs: Refs): void {
  const TeamBudgetRef = builder.objectRef<TeamBudget>('TeamBudget').implement({
    description: "A team's spending limits and what its model calls used (cost in the agents' pricing currency).",
    fields: (t) => ({
      maxTokens: t.exposeInt('maxTokens', {
        nullable: true,
        description: 'Tokens (in + out) the team may use; null: no limit.',
      }),
      maxCost: t.exposeFloat('maxCost', { nullable: true, description: 'Cost the team may use; null: no limit.' }),
      // Saturates like `Usage`'s counts: a team's lifetime of tokens can pass GraphQL's `Int`,
      // and a failing field would fail the team's query and `setTeamBudget`'s answer with it.
      usedTokens: t.int({
        description: `Tokens (in + out) of the recorded model calls. ${SATURATES}`,
        resolve: (budget) => saturatedInt(budget.usedTokens),
      }),
      usedCost: t.exposeFloat('usedCost'),
    }),
  });
  builder.objectField(refs.Team, 'budget', (t) =>
    t.field({
      type: TeamBudgetRef,
      resolve: async (team, _args, ctx) => {
        const [budget] = await ctx.core.budgets.teamBudgets([team.id]);
        return budget ?? { maxTokens: null, maxCost: null, usedTokens: 0, usedCost: 0 };
      },
    }),
  );
  const SetTeamBudgetInput = builder.inputType('SetTeamBudgetInput', {
    fields: (t) => ({
      teamId: t.id({ required: true }),
      maxTokens: t.int({ required: false, description: 'Null or absent: no token limit.' }),
      maxCost: t.float({ required: false, description: 'Null or absent: no cost limit.' }),
    }),
  });
  const SetTeamBudgetPayload = builder.objectRef<{ readonly team: Team }>('SetTeamBudgetPayload').implement({
    fields: (t) => ({ team: t.field({ type: refs.Team, resolve: (payload) => payload.team }) }),
  });
  builder.mutationField('setTeamBudget', (t) =>
    t.field({
      type: SetTeamBudgetPayload,
      description: "Sets (or, with both limits null, removes) a team's budget. Raising it lets new work run.",
      args: { input: t.arg({ type: SetTeamBudgetInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        team: await ctx.core.budgets.setTeamBudget(requireViewer(ctx), String(input.teamId), {
          maxTokens: input.maxTokens ?? null,
          maxCost: input.maxCost ?? null,
        }),
      }),
    }),
  );
}
