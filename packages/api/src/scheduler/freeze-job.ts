import {
  type AgentDefinition,
  type AgentId,
  buildTurnInput,
  type FreezeContext,
  type JobCommand,
  JobErrorCode,
  JobPhase,
  memberAgent,
  type RuntimeRegistry,
  TeamStatus,
  type TransitionContext,
  type TransitionOutcome,
  transition,
  WAKE_KIND,
  wakeResult,
} from '@agent-teams/core';

/** The WAKE of a waiting job: the changes that woke it (none at its deadline) as the tool's result. */
function wakeCommand(ctx: FreezeContext): JobCommand {
  const requestId = ctx.job.wait?.requestId ?? '';
  const value = wakeResult(ctx.changes ?? [], ctx.team.lastEventSeq);
  return {
    type: 'WAKE',
    response: {
      runKey: `${ctx.job.id}:wake:${requestId}`,
      inputRequestId: requestId,
      kind: WAKE_KIND,
      value,
      clientRequestId: requestId,
    },
  };
}

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
  const member = ctx.members.find((candidate) => candidate.id === ctx.job.memberId) ?? null;
  // Work that reached a closed team or a retired member after the fact (a receipt of a request
  // sent before) never runs: it ends CANCELLED here instead of holding a slot (decision 0165).
  if (ctx.team.status === TeamStatus.CLOSED || (member !== null && member.retiredAt !== null)) {
    return transition(ctx.job, { type: 'CANCEL' }, tctx);
  }
  // An answered job already has its input and its answer: the slot lets it submit the answer.
  if (ctx.job.phase === JobPhase.ANSWERED) return transition(ctx.job, { type: 'RESUME' }, tctx);
  // A woken wait submits its result the same way, as the answer of its `wait_for_change` call.
  if (ctx.job.phase === JobPhase.WAITING_CHANGE) return transition(ctx.job, wakeCommand(ctx), tctx);
  const resolved = memberAgent(member, member ? (agents.get(member.agentId) ?? null) : null, runtimes);
  if (!resolved.ok) {
    return transition(ctx.job, { type: 'FAIL', error: resolved.error, code: JobErrorCode.AGENT_UNAVAILABLE }, tctx);
  }
  return transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx), runKey: ctx.job.id }, tctx);
}
