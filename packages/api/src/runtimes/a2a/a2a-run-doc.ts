import type { EndedRunState, RunState } from '@agent-teams/core';

/** How a run ended (or that it waits for a person's answer). */
export type A2aOutcome = EndedRunState;

/** What `runtime_runs.state_json` holds for an `a2a` run: one message to a remote agent and its task. */
export interface A2aRunDoc {
  readonly teamId: string;
  readonly jobId: string;
  /** When the run began (epoch ms) and its turn deadline, so a replay keeps the same deadline. */
  readonly startedAtMs: number;
  readonly timeoutMs: number;
  /** The message's id (derived from the run key: the same turn always sends the same id). */
  readonly messageId: string;
  /** The message's text. */
  readonly text: string;
  /** The conversation's A2A context. */
  readonly contextId: string;
  /**
   * The remote task: known before sending for an answer (the task that asked), and from the
   * remote's first answer for a new turn. Once known, a replay follows it and never sends again.
   */
  readonly remoteTaskId: string | null;
  /** For an answer: the id of the question it answers (the remote task's input-required message). */
  readonly answers: string | null;
  /** When the message went out (epoch ms); set before sending, so a replay knows it may have arrived. */
  readonly sentAtMs: number | null;
  /** True once the remote agent showed it has the message (it answered, or lists it in its task). */
  readonly delivered: boolean;
  readonly outcome: A2aOutcome | null;
  /** Set while the remote agent refuses our credentials or asks for auth: the next poll reports it. */
  readonly blocked: string | null;
}

/** The document of a run that ended with `outcome`. */
export function settled(doc: A2aRunDoc, outcome: A2aOutcome): A2aRunDoc {
  return { ...doc, outcome, blocked: null };
}

/** What `poll` answers for an ended run. */
export function stateOf(outcome: A2aOutcome | null): RunState {
  return outcome ?? { state: 'failed', error: 'run has no outcome' };
}
