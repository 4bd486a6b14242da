import type { JobId, UsageScope, UsageTotals } from '@agent-teams/core';
import type { Builder, Types } from './builder.js';
import type { ApiContext } from './context.js';
import type { Refs } from './refs.js';
import { SATURATES, saturatedInt } from './saturated-int.js';

function load(ctx: ApiContext, scope: UsageScope): Promise<UsageTotals> {
  return ctx.loaders.usage.load(scope);
}

/**
 * A count field of `Usage`: a sum above GraphQL's largest `Int` (a busy team's lifetime of tokens
 * can pass it) reads as that, instead of failing the whole `Usage` with a serialization error.
 */
function count(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, UsageTotals>,
  key: 'inputTokens' | 'cachedInputTokens' | 'outputTokens' | 'calls',
  description?: string,
) {
  return t.int({
    description: description === undefined ? SATURATES : `${description} ${SATURATES}`,
    resolve: (usage) => saturatedInt(usage[key]),
  });
}

/**
 * Adds `Usage` (tokens and cost of model calls) and the additive fields `Job.usage`,
 * `Job.chainUsage`, `Member.usage` and `Team.usage`.
 *
 * @remarks Cost is in the currency of the agents' configured `pricing` (0 for agents without
 * pricing and for runtimes that make no model calls, such as `scripted`). A member's usage is
 * that of its conversation, so it includes the receipt turns it ran; a chain's is every job of
 * the handoff chain, requests and receipts.
 */
export function addUsage(builder: Builder, refs: Refs): void {
  const Usage = builder.objectRef<UsageTotals>('Usage').implement({
    description: 'Tokens and cost of the model calls made for a job, a handoff chain, a member or a team.',
    fields: (t) => ({
      inputTokens: count(t, 'inputTokens'),
      cachedInputTokens: count(
        t,
        'cachedInputTokens',
        'Of inputTokens, those the provider read from its prompt cache (as its usage report says; 0 when it reports none, and for calls recorded before this field).',
      ),
      outputTokens: count(t, 'outputTokens'),
      cost: t.exposeFloat('cost', { description: "In the currency of the agents' configured pricing." }),
      calls: count(t, 'calls', 'Number of model calls summed.'),
    }),
  });
  /** A `Usage` field summing the usage of the scope its parent names. */
  const usageField =
    <P>(description: string, scope: (parent: P) => UsageScope) =>
    (t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>) =>
      t.field({ type: Usage, description, resolve: (parent, _args, ctx) => load(ctx, scope(parent)) });
  builder.objectField(
    refs.Job,
    'usage',
    usageField("Usage of this job's own turns.", (job) => ({ kind: 'job', id: job.id })),
  );
  builder.objectField(
    refs.Job,
    'chainUsage',
    usageField('Usage of the whole handoff chain this job belongs to (every request and receipt).', (job) => ({
      kind: 'chain',
      id: job.rootId as JobId,
    })),
  );
  builder.objectField(
    refs.Member,
    'usage',
    usageField("Usage of every turn in this member's conversation (receipts it ran included).", (member) => ({
      kind: 'conversation',
      id: member.conversationId,
    })),
  );
  builder.objectField(
    refs.Team,
    'usage',
    usageField('Usage of every turn of the team.', (team) => ({ kind: 'team', id: team.id })),
  );
}
