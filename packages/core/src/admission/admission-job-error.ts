/**
 * The failure of one admitted job inside a planning pass: its freeze threw, or a write of its
 * admission failed (a constraint, a trigger, a value the database refused). The store's pass
 * rolls back as a whole and throws this, naming the job, so the scheduler can set that job
 * aside for a while and admit every other team's work at once, instead of backing off the whole
 * admission (one broken job then stalled every team: the first wave's `UNIQUE_VIOLATION` of a
 * dropped follow-up did).
 *
 * @remarks `code` repeats the cause's driver code (a SQLSTATE, a `SQLITE_*` code), so a store's
 * retry of a transient condition (a deadlock, a busy database) still sees it. Failures of the
 * database itself (a lost connection, a full disk) are not wrapped: they are no job's fault.
 */
export class AdmissionJobError extends Error {
  readonly jobId: string;
  readonly teamId: string;
  /** The cause's own `code`, when it has one. */
  readonly code: string | undefined;

  constructor(jobId: string, teamId: string, cause: unknown) {
    super(`admitting job ${jobId} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'AdmissionJobError';
    this.jobId = jobId;
    this.teamId = teamId;
    const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** How deep {@link admissionJobErrorOf} looks through `cause` (a store wraps a failure at most twice). */
const CAUSE_DEPTH = 4;

/** The {@link AdmissionJobError} in `error` or its causes, or null. */
export function admissionJobErrorOf(error: unknown): AdmissionJobError | null {
  let current: unknown = error;
  for (let depth = 0; depth <= CAUSE_DEPTH && current !== undefined && current !== null; depth += 1) {
    if (current instanceof AdmissionJobError) return current;
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return null;
}
