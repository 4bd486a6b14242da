import {
  type AgentDefinition,
  type AgentId,
  buildTurnInput,
  type FreezeContext,
  type JobCommand,
  JobErrorCode,
  JobPhase,
  type Member,
  memberAgent,
  type RecordMessage,
  type RuntimeRegistry,
  type TeamContextJson,
  TeamStatus,
  type TransitionContext,
  type TransitionOutcome,
  teamContextJson,
  transition,
  WAKE_KIND,
  wakeResult,
} from '@agent-teams/core';
import { lostStateCommand } from './run-outcome.js';

/**
 * Fails a job whose stored state lacks what its phase needs (a value that no longer read, see
 * `storage/stored-json.ts`, or one that read as something else): the transition would refuse,
 * and a refusal fails the whole pass, for every team.
 */
function lost(ctx: FreezeContext, what: string, tctx: TransitionContext): TransitionOutcome {
  return transition(ctx.job, lostStateCommand(what), tctx);
}

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

/** A team context built for a list of records, and the team and roster it was built with. */
interface BuiltContext {
  readonly teamId: string;
  readonly goal: string;
  readonly members: readonly Member[];
  readonly context: TeamContextJson;
}

/**
 * The context last built per records list. The store reads a team's newest records once per
 * write and hands every job of the team it freezes the same list (`WriteScope.recentRecords`), so
 * a request to eight members builds the context once, not eight times (with full records, about
 * 40 µs each). Weak: a list is dropped with its write.
 */
const built = new WeakMap<readonly RecordMessage[], BuiltContext>();

/** True when `members` holds the very member objects of `known` (a roster read again is new objects). */
function sameMembers(known: readonly Member[], members: readonly Member[]): boolean {
  return known.length === members.length && known.every((member, i) => member === members[i]);
}

/**
 * The team context of `ctx`, built once per records list, team goal and roster: everything
 * `teamContextJson` reads of them.
 */
function contextOf(ctx: FreezeContext): TeamContextJson {
  const known = built.get(ctx.recentRecords);
  if (known?.teamId === ctx.team.id && known.goal === ctx.team.goal && sameMembers(known.members, ctx.members)) {
    return known.context;
  }
  const context = teamContextJson(ctx.team, ctx.members, ctx.recentRecords);
  built.set(ctx.recentRecords, { teamId: ctx.team.id, goal: ctx.team.goal, members: ctx.members, context });
  return context;
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
  if (ctx.job.phase === JobPhase.ANSWERED) {
    if (typeof ctx.job.pendingResponse?.runKey !== 'string') return lost(ctx, 'pending answer', tctx);
    return transition(ctx.job, { type: 'RESUME' }, tctx);
  }
  // A woken wait submits its result the same way, as the answer of its `wait_for_change` call.
  if (ctx.job.phase === JobPhase.WAITING_CHANGE) {
    if (typeof ctx.job.wait?.requestId !== 'string') return lost(ctx, 'wait', tctx);
    return transition(ctx.job, wakeCommand(ctx), tctx);
  }
  const resolved = memberAgent(member, member ? (agents.get(member.agentId) ?? null) : null, runtimes);
  if (!resolved.ok) {
    return transition(ctx.job, { type: 'FAIL', error: resolved.error, code: JobErrorCode.AGENT_UNAVAILABLE }, tctx);
  }
  return transition(ctx.job, { type: 'FREEZE', input: buildTurnInput(ctx, contextOf(ctx)), runKey: ctx.job.id }, tctx);
}
