import {
  type AgentDefinition,
  type AgentId,
  buildTurnInput,
  type FreezeContext,
  JobPhase,
  type RuntimeRegistry,
  type TransitionContext,
  type TransitionOutcome,
  transition,
} from '@agent-teams/core';

/**
 * The `freeze` decision of one admitted job: RESUME for an ANSWERED job (submit the persisted
 * answer), FREEZE with its turn input and the job id as run key, or FAIL when it can never run here (its agent left the catalog, or the agent's runtime is
 * not configured), so a job that cannot start never holds a slot.
 *
 * @remarks Synchronous because the store calls it inside its transaction; the catalog is read
 * before the transaction and passed in as `agents`.
 */
export function freezeJob(
  ctx: FreezeContext,
  agents: ReadonlyMap<AgentId, AgentDefinition>,
  runtimes: RuntimeRegistry,
  tctx: TransitionContext,
): TransitionOutcome {
  // An answered job already has its input and its answer: the slot lets it submit the answer.
  if (ctx.job.phase === JobPhase.ANSWERED) return transition(ctx.job, { type: 'RESUME' }, tctx);
  const member = ctx.members.find((candidate) => candidate.id === ctx.job.memberId);
  const fail = (error: string): TransitionOutcome => transition(ctx.job, { type: 'FAIL', error }, tctx);
  if (!member) return fail('The member of this job no longer exists.');
  const agent = agents.get(member.agentId);
  if (!agent) return fail(`The agent "${member.agentId}" is not in the agent catalog.`);
  if (!runtimes.get(agent.runtime)) {
    return fail(`The agent "${agent.name}" uses the runtime "${agent.runtime}", which this server does not run.`);
  }
  return transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, tctx);
}
