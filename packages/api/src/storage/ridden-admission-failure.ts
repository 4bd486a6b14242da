import { ServerRefusedError } from './pg-server-check.js';

/**
 * A SQLSTATE as PostgreSQL answers it: five digits or capitals. A Node.js system error code
 * (`EPIPE`) can have five letters too, but no SQLSTATE class begins with E.
 */
const SQLSTATE = /^(?!E)[0-9A-Z]{5}$/;

/**
 * SQLSTATEs that say the connection, not the statement, failed: connection exceptions (class 08,
 * which a pooler such as PgBouncer also sends when it loses the server) and a backend shut down
 * (57P01–57P03). The COMMIT sent behind the statement may have run before it.
 */
const CONNECTION_LOST = /^(08...|57P0[123])$/;

/**
 * Thrown by an enqueue's write when a statement of the admission riding it, sent and left to go
 * with the COMMIT (PostgreSQL, decision 0254), failed: the transaction was aborted, the enqueue's
 * own writes with it, and nothing committed. The enqueue runs again without the ride
 * (`KyselyJobRoles.enqueueRequests`), and a scheduler pass admits its jobs. `cause`: the
 * statement's error.
 */
export class RiddenAdmissionFailedError extends Error {
  constructor(cause: unknown) {
    super('[agent-teams/api] a write of the admission riding an enqueue failed, and the enqueue with it', { cause });
    this.name = 'RiddenAdmissionFailedError';
  }
}

/**
 * What the failure of a statement the ridden admission left becomes (`PgHeldConnection.blamed`):
 * {@link RiddenAdmissionFailedError} when the statement itself failed on the server (a SQLSTATE,
 * or a check it refused: `pg-server-check.ts`), since a transaction with a failed statement cannot
 * commit; the error itself otherwise. A connection lost before the answer came says nothing of
 * the COMMIT sent behind it, and neither does an error of the connection ({@link CONNECTION_LOST}),
 * which a pooler such as PgBouncer may give the oldest unanswered statement when it loses the
 * server: such a write fails as any write whose COMMIT went unanswered.
 */
export function blameRiddenAdmission(error: unknown): unknown {
  return answeredWithAnError(error) ? new RiddenAdmissionFailedError(error) : error;
}

/** How deep {@link answeredWithAnError} looks through `cause` (an admission wraps a job's failure once). */
const CAUSE_DEPTH = 4;

/** True when `error`, or one of its causes, is an error the server answered (see {@link blameRiddenAdmission}). */
function answeredWithAnError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= CAUSE_DEPTH && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof ServerRefusedError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_LOST.test(code)) return false;
    if (typeof code === 'string' && SQLSTATE.test(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The error a ridden admission's failure stands for: its cause when it was wrapped, else itself. */
export function unwrapRiddenAdmission(error: unknown): unknown {
  return error instanceof RiddenAdmissionFailedError ? error.cause : error;
}
