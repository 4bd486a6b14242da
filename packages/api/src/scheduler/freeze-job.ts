import {
  type AgentDefinition,
  type AgentId,
  buildTurnInput,
  type FreezeContext,
  JobErrorCode,
  JobPhase,
  memberAgent,
  type RuntimeRegistry,
  type TransitionContext,
  type TransitionOutcome,
  transition,
} from '@agent-teams/core';

/**
 * The `freeze` decision of one admitted job: RESUME for an ANSWERED job (submit the persisted
 * answer), FREEZE with its turn input and the job id as run key, or FAIL when it can never run
 * here (see `memberAgent`), so a job that cannot start never holds a slot.
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
  const member = ctx.members.find((candidate) => candidate.id === ctx.job.memberId) ?? null;
  const resolved = memberAgent(member, member ? (agents.get(member.agentId) ?? null) : null, runtimes);
  if (!resolved.ok) {
    return transition(ctx.job, { type: 'FAIL', error: resolved.error, code: JobErrorCode.AGENT_UNAVAILABLE }, tctx);
  }
  return transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, tctx);
}
