/**
 * Why a job ended FAILED or CANCELLED, as a stable code (`Job.errorCode`), so clients branch on it
 * instead of parsing the error text. Add-only: a snapshot test fails when a code is removed or
 * renamed. Null on a job means no known reason (or it did not fail).
 */
export const JobErrorCode = {
  /** A model call would have passed a team or owner budget; it was not made. */
  BUDGET_EXHAUSTED: 'BUDGET_EXHAUSTED',
  /** The turn passed its deadline (`timeoutMs`); the run was cancelled. */
  TIMEOUT: 'TIMEOUT',
  /** A person cancelled it (`cancelJob`, a team closed or deleted by its owner). */
  CANCELLED_BY_PERSON: 'CANCELLED_BY_PERSON',
  /** The team's lead cancelled it (interrupt, retire). */
  CANCELLED_BY_LEAD: 'CANCELLED_BY_LEAD',
  /** The run was cancelled outside the team (at the remote agent or the runtime). */
  CANCELLED_OUTSIDE: 'CANCELLED_OUTSIDE',
  /** The runtime or the agent failed the run, or rejected the job. */
  RUNTIME_ERROR: 'RUNTIME_ERROR',
  /** The model provider or remote agent could not be reached or kept failing. */
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  /** The member's agent or its runtime is no longer configured. */
  AGENT_UNAVAILABLE: 'AGENT_UNAVAILABLE',
  /** The job lost state it needs to continue (its run, its frozen input). */
  STATE_LOST: 'STATE_LOST',
} as const;

/** One of the {@link JobErrorCode} values. */
export type JobErrorCode = (typeof JobErrorCode)[keyof typeof JobErrorCode];
