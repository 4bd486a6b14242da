import type { ChangeWait, InputRequest, JobErrorCode, RunState } from '@agent-teams/core';

/** How a run ended. */
export type RunOutcome =
  | { readonly state: 'completed'; readonly answer: string }
  | { readonly state: 'waiting'; readonly input: InputRequest; readonly toolCallId: string }
  /** Paused in `wait_for_change`: the woken result answers `toolCallId` (decision 0165). */
  | { readonly state: 'waiting_change'; readonly wait: ChangeWait; readonly toolCallId: string }
  | { readonly state: 'failed'; readonly error: string; readonly code?: JobErrorCode }
  | { readonly state: 'cancelled' };

/** What `poll` answers for a run that ended with `outcome` (none: it failed without one). */
export function runStateOf(outcome: RunOutcome | null): RunState {
  if (outcome === null) return { state: 'failed', error: 'run has no outcome' };
  if (outcome.state === 'waiting') return { state: 'waiting', input: outcome.input };
  if (outcome.state === 'waiting_change') return { state: 'waiting_change', wait: outcome.wait };
  return outcome;
}
