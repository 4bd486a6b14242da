import type { AdmitArgs, AdmittedJob, Job, JobId } from '@agent-teams/core';
import { sql } from 'kysely';
import { admitIfFree } from './admission.js';
import { classifyDriverError, DriverErrorKind } from './driver-errors.js';
import { pgHeld } from './pg-held-connection.js';
import { blameRiddenAdmission, unwrapRiddenAdmission } from './ridden-admission-failure.js';
import type { WriteScope } from './write-transaction.js';

/**
 * An admission prepared to ride one local enqueue: its arguments (the catalog already read, so
 * nothing waits on the catalog inside the transaction) and what the scheduler is told once the
 * enqueue committed.
 */
export interface PreparedRide {
  readonly args: AdmitArgs;
  /** Asked inside the transaction: false once the scheduler stops, so nothing is admitted then. */
  active(): boolean;
  /**
   * After COMMIT, before the commit's events are published: what the ridden admission admitted
   * (leased to the scheduler's server), or why it failed (`admitted` empty: the enqueue committed
   * without it, and a pass admits later).
   */
  committed(outcome: RideOutcome): void;
  /** Right after the commit's events were published (synchronously after {@link committed}). */
  published(): void;
}

/** What an admission that rode an enqueue did. */
export interface RideOutcome {
  readonly admitted: readonly AdmittedJob[];
  /** Why the admission was rolled back to its savepoint; null when it ran. */
  readonly error: unknown;
  /**
   * True when it did not run because another transaction (a pass, another server's ride) held
   * the planning lock (PostgreSQL, decision 0229), or when the database chose it as a deadlock's
   * victim (rolled back to its savepoint, or with its enqueue when a write it left was the victim:
   * decision 0254): nothing failed, and the enqueue's events wake a pass that admits.
   */
  readonly skipped: boolean;
}

/**
 * The scheduler's offer to admit inside a local enqueue's own transaction (decision 0223): one
 * commit and one scheduler pass fewer between a request and its turn.
 */
export interface EnqueueAdmission {
  /** Before the transaction: a ride, or null when admission must stay in its own pass now. */
  prepare(now: string): Promise<PreparedRide | null>;
}

/** The savepoint's name: the ridden admission rolls back alone, never the enqueue it rides. */
const SAVEPOINT = 'admission_ride';

/**
 * Runs the prepared admission at the end of an enqueue's transaction, inside a savepoint: a
 * failing admission (a freeze that throws, a statement that fails) rolls back to it, and its
 * events with it, and the enqueue commits as it would have alone.
 *
 * @remarks The enqueue's events are written first, so the admission reads the team row with the
 * revision and event seq the enqueue gave it, as a pass after the commit would have.
 * @param inserted the jobs the enqueue inserted, as they read once their inserts answered: frozen
 * as given, not read again.
 */
export async function rideAdmission(
  scope: WriteScope,
  ride: PreparedRide,
  inserted: () => Promise<readonly Job[]>,
): Promise<RideOutcome> {
  // Inserted by this transaction and not visible to any other until it commits: as they stand,
  // so the admission does not read them again. Asked once the planning lock answered (the
  // admission got it): the inserts sent before it answered with it (decision 0257).
  let byId: Promise<ReadonlyMap<JobId, Job>> | null = null;
  const riding = {
    inserted: () => {
      byId ??= inserted().then((jobs) => new Map(jobs.map((job) => [job.id, job])));
      return byId;
    },
  };
  // The enqueue's writes sent and left (its inserts too), its events too, are not waited for: the
  // savepoint and the ride's first reads follow them on the wire. One that failed aborted the
  // transaction, so the savepoint was never taken and no rollback to it can drop that failure: it
  // fails the enqueue (below, or at the COMMIT, which follows them and the ride's own writes).
  const held = pgHeld(scope.trx);
  await scope.events.flush();
  // Those whose check runs here are answered first: a check that fails aborts nothing, so a
  // rollback to the savepoint could drop it (none is left before the ride today).
  await held?.settleForCommit();
  const restore = scope.events.mark();
  if (held === undefined) await sql.raw(`SAVEPOINT ${SAVEPOINT}`).execute(scope.trx);
  else held.defer(held.run(`SAVEPOINT ${SAVEPOINT}`, []), () => undefined, true);
  try {
    const admit = async () => {
      const admitted = await admitIfFree(scope, ride.args, riding);
      // Its events too: a failure writing them rolls back to the savepoint like any other.
      await scope.events.flush();
      return admitted;
    };
    // PostgreSQL: what the admission sends and leaves goes with the enqueue's COMMIT, not waited
    // for here (decision 0254). One that fails aborts the whole transaction, the enqueue too; it
    // fails the write as a `RiddenAdmissionFailedError`, and the enqueue runs again without the ride.
    const admitted = held === undefined ? await admit() : await held.blamed(blameRiddenAdmission, admit);
    // Kept open on PostgreSQL: the enqueue's COMMIT releases it with all it holds, and there a
    // RELEASE is a round trip of its own inside the enqueue (decision 0250). SQLite's costs nothing.
    if (scope.dialect !== 'postgres') await sql.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`).execute(scope.trx);
    return admitted === null ? { admitted: [], error: null, skipped: true } : { admitted, error: null, skipped: false };
  } catch (thrown) {
    // A write sent and left that failed is the cause of what failed after it: the enqueue's own
    // (then the rollback below fails: there is no savepoint), or the admission's.
    // Unwrapped: failing here, it rolls back to the savepoint like any other.
    const error = unwrapRiddenAdmission((await held?.firstFailure())?.error ?? thrown);
    try {
      await sql.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`).execute(scope.trx);
      await sql.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`).execute(scope.trx);
    } catch {
      // The database ended the whole transaction (an I/O error, a full disk): the enqueue fails
      // with the error that ended it, not with the missing savepoint.
      throw error;
    }
    restore();
    return failedRide(error, scope.dialect);
  }
}

/**
 * What the scheduler hears of a ridden admission that failed with `error` and was rolled back,
 * alone to its savepoint or with its enqueue (decision 0254).
 */
export function failedRide(error: unknown, dialect: WriteScope['dialect']): RideOutcome {
  // Chosen as a deadlock's victim, or a serialization failure: nothing is wrong with admission,
  // and the pass the enqueue's events wake admits instead (no backoff, nothing logged).
  if (classifyDriverError(error, dialect) === DriverErrorKind.RETRYABLE) {
    return { admitted: [], error: null, skipped: true };
  }
  return { admitted: [], error, skipped: false };
}

/** The enqueued jobs as the ride left them: an admitted one as admitted (ADMITTING, or ended by its freeze). */
export function asAdmitted(jobs: readonly Job[], outcome: RideOutcome): Job[] {
  const byId = new Map(outcome.admitted.map((entry) => [entry.job.id, entry.job]));
  return jobs.map((job) => byId.get(job.id) ?? job);
}
