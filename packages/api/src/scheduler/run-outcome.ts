import {
  type Job,
  type JobCommand,
  type JobEffect,
  JobErrorCode,
  JobPhase,
  type RunState,
  type TransitionContext,
  type TransitionOutcome,
  transition,
} from '@agent-teams/core';

/** The failure of a run that was cancelled by someone other than the team. */
export const CANCELLED_OUTSIDE = 'The run was cancelled outside the team.';

/**
 * The FAIL of a job that lost state its phase needs (`what`: its run id, its frozen input, its
 * pending answer, its wait), as the step that starts it and the admission that resumes it say it.
 */
export function lostStateCommand(what: string): JobCommand {
  return { type: 'FAIL', error: `The job lost its ${what}; it cannot continue.`, code: JobErrorCode.STATE_LOST };
}

/**
 * The command that applies a run's observed state to a job in `phase`, or null while it runs.
 *
 * @remarks A CANCELLING job whose run is no longer running is confirmed cancelled whatever the
 * run ended with: a cancelled job never reports a result.
 */
export function outcomeCommand(phase: JobPhase, state: RunState): JobCommand | null {
  if (state.state === 'running') return null;
  if (phase === JobPhase.CANCELLING) return { type: 'CANCEL_CONFIRMED' };
  switch (state.state) {
    case 'completed':
      return { type: 'COMPLETE', answer: state.answer };
    case 'waiting':
      return { type: 'ASK_INPUT', input: state.input };
    case 'waiting_change':
      return { type: 'AWAIT_CHANGE', wait: state.wait };
    case 'failed':
      return { type: 'FAIL', error: state.error, code: state.code ?? JobErrorCode.RUNTIME_ERROR };
    case 'cancelled':
      return { type: 'FAIL', error: CANCELLED_OUTSIDE, code: JobErrorCode.CANCELLED_OUTSIDE };
  }
}

/** One step of a composed decision: the command for the job as it is now, or null to skip. */
export type CommandStep = (job: Job) => JobCommand | null;

/**
 * Applies several commands in order, as one decision (one commit): e.g. ACKNOWLEDGE and COMPLETE
 * for a turn that finished inside `start`. Effects are concatenated; the first refusal wins.
 */
export function transitionAll(job: Job, steps: readonly CommandStep[], ctx: TransitionContext): TransitionOutcome {
  let current = job;
  const effects: JobEffect[] = [];
  for (const step of steps) {
    const command = step(current);
    if (command === null) continue;
    const outcome = transition(current, command, ctx);
    if (!outcome.ok) return outcome;
    current = outcome.job;
    effects.push(...outcome.effects);
  }
  return { ok: true, job: current, effects };
}

/** A decision that changes nothing (the store then writes nothing). */
export function unchanged(job: Job): TransitionOutcome {
  return { ok: true, job, effects: [] };
}
