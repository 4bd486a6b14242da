import {
  AdmissionJobError,
  type AdmitArgs,
  type AdmittedJob,
  asOwnerId,
  headsPerOwner,
  type Job,
  type JobId,
  JobPhase,
  Limits,
  type RoundState,
  settledRound,
  type TeamId,
  type TeamMessage,
} from '@agent-teams/core';
import type { Kysely, Selectable } from 'kysely';
import { type CandidateRow, candidatesReadAhead, readCandidates, readCandidatesAhead } from './admission-candidates.js';
import { readChanges, wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database, TeamsTable } from './database-types.js';
import { isEnvironmentError } from './driver-errors.js';
import { admittedCandidates, answeredAhead, type LockedAhead, lockAhead } from './freeze-locks-ahead.js';
import { freezeReadsFor, keepFreezeReads } from './freeze-reads.js';
import { JOB_BY_ID, UNFINISHED } from './job-reads.js';
import { applyAdmission, applyTransition } from './job-writes.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';
import { deliverFrozen, undeliveredMessages } from './mailbox.js';
import { blamed } from './pg-held-connection.js';
import { ROUND_IF_FREE, readActive, readRound, storeEmptyRound, storeRound } from './planning-lock.js';
import { toJob, toTeam, withoutSeq } from './row-mappers.js';
import { readStoredRound } from './stored-json.js';
import { type LockedTeamJob, lockTeamIfFreeWithReads, lockTeamWithJob } from './team-job-lock.js';
import type { WriteScope } from './write-transaction.js';

/**
 * Phases that wait for a slot: QUEUED (to start), ANSWERED (to submit a person's answer) and
 * WAITING_CHANGE (to submit a woken wait's result; only once woken, see `readWoken`).
 */
const ADMISSIBLE_PHASES: readonly string[] = [JobPhase.QUEUED, JobPhase.ANSWERED, JobPhase.WAITING_CHANGE];

/**
 * An admission that rides an enqueue (decision 0229): the jobs that enqueue inserted, by id, as
 * they stand (no other transaction sees them before it commits), frozen without being read again.
 */
export interface RiddenEnqueue {
  /**
   * Once their inserts answered: on PostgreSQL the ride's first statements follow them on the
   * wire, so their answers come with the planning lock's (decision 0257).
   */
  inserted(): Promise<ReadonlyMap<JobId, Job>>;
}

/**
 * Freezes one planned job under its team's lock (`inserted`: a ride's own jobs, null in a pass).
 * In a ride the lock is taken only if free: the
 * enqueue already holds its own team, and waiting for another team's writer would make the request
 * wait for it (and every pass with it, the planning lock being held); a team busy now leaves its
 * job to the pass that follows.
 */
async function freezeOne(
  scope: WriteScope,
  jobId: JobId,
  teamId: TeamId,
  args: AdmitArgs,
  inserted: ReadonlyMap<JobId, Job> | null,
  ahead: LockedAhead | undefined,
): Promise<AdmittedJob | null> {
  const locked = await (ahead !== undefined
    ? takeAhead(scope, teamId, ahead)
    : inserted === null
      ? lockTeamAndJob(scope, teamId, jobId)
      : lockInRide(scope, teamId, jobId, inserted));
  if (locked === undefined) return null;
  const { team: teamRow, job } = locked;
  // Changed since the candidates were read (cancelled by another server): not admitted.
  if (!ADMISSIBLE_PHASES.includes(job.phase)) return null;
  // Read under the team lock: a send to this member waits for this transaction, so a message
  // is either frozen into this turn or still undelivered for the next one, never both.
  const mailbox = job.memberId === null ? [] : (locked.mailbox ?? (await undeliveredMessages(scope.trx, job.memberId)));
  const outcome = args.freeze({
    job,
    team: withoutSeq(toTeam(teamRow)),
    members: await scope.roster(job.teamId),
    recentRecords: await scope.recentRecords(job.teamId),
    mailbox,
    ...(job.phase === JobPhase.WAITING_CHANGE ? { changes: await readChanges(scope.trx, job) } : {}),
  });
  if (!outcome.ok) throw outcome.error;
  if (outcome.job === job) return null;
  const admitted =
    args.serverId === undefined
      ? { job: await applyTransition(scope, job, outcome) }
      : await applyAdmission(scope, job, outcome, args.serverId, locked.fence);
  await deliverFrozen(scope, admitted.job, mailbox);
  return admitted;
}

/** A pass's freeze: the team locked and the job read under it (one round trip on PostgreSQL). */
async function lockTeamAndJob(
  scope: WriteScope,
  teamId: TeamId,
  jobId: JobId,
  sent: Promise<LockedTeamJob | undefined> = lockTeamWithJob(scope, teamId, jobId, freezeReadsFor(scope, teamId)),
): Promise<Locked | undefined> {
  const locked = await sent;
  if (locked === undefined) return undefined;
  const fence = Number(locked.job.lease_fence);
  return { team: locked.team, job: toJob(locked.job), fence, ...keepFreezeReads(scope, teamId, locked) };
}

/** A ride's freeze: the team locked only if free; its own jobs as the enqueue inserted them. */
async function lockInRide(
  scope: WriteScope,
  teamId: TeamId,
  jobId: JobId,
  ownJobs: ReadonlyMap<JobId, Job>,
): Promise<Locked | undefined> {
  const inserted = ownJobs.get(jobId);
  if (inserted !== undefined) {
    const locked = await lockTeamIfFreeWithReads(scope, teamId, inserted.memberId, freezeReadsFor(scope, teamId));
    return locked === undefined
      ? undefined
      : { team: locked.team, job: inserted, fence: 0, ...keepFreezeReads(scope, teamId, locked) };
  }
  const team = await scope.lockTeamIfFree(teamId);
  if (team === undefined) return undefined;
  const [row] = await JOB_BY_ID.rows(scope.trx, jobId);
  return row === undefined ? undefined : { team, job: toJob(row), fence: Number(row.lease_fence) };
}

/** A freeze's locked read sent ahead (`freeze-locks-ahead.ts`), its notes made now, in the freezes' order. */
async function takeAhead(scope: WriteScope, teamId: TeamId, ahead: LockedAhead): Promise<Locked | undefined> {
  if (ahead.kind === 'pass') return lockTeamAndJob(scope, teamId, ahead.jobId, ahead.read);
  const locked = await ahead.read;
  return locked === undefined
    ? undefined
    : { team: locked.team, job: ahead.job, fence: 0, ...keepFreezeReads(scope, teamId, locked) };
}

/** A team row locked and a job read under that lock. */
interface Locked {
  readonly team: Selectable<TeamsTable>;
  readonly job: Job;
  /** The job row's lease fence as read under the lock (its admission's lease gets the next). */
  readonly fence: number;
  /** The job's member's undelivered messages, when the lock's read brought them (PostgreSQL). */
  readonly mailbox?: TeamMessage[];
}

/**
 * True when a planning pass could change something: a job waits for a slot, a waiting job's wait
 * ended (decision 0165), or the stored round still names owners (a pass with no candidates
 * empties it). Read without any lock, so an idle pass takes neither the planning lock nor a
 * commit; a job enqueued meanwhile publishes an event that wakes the next pass.
 *
 * @remarks One statement for the three questions (each an `EXISTS` or a one-row read that stops
 * at its first row): an idle check after every finished turn, and on PostgreSQL one round trip
 * instead of three.
 */
export async function admissionMayChange(db: Kysely<Database>, now: string): Promise<boolean> {
  const [row] = await MAY_CHANGE.rows(db, now);
  if (row === undefined) throw new Error('[agent-teams/api] the admission check returned no row');
  // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
  if (row.queued || row.woken) return true;
  if (row.round === null) return false;
  const round = readStoredRound(row.round);
  // One that does not read: a pass stores the empty round in its place.
  if (round === null) return true;
  return round.rotation.length > 0 || round.served.length > 0;
}

/** The three questions of {@link admissionMayChange} in one statement, compiled once. */
const MAY_CHANGE = new CompiledStatement(1, (db, now: string) =>
  db.selectNoFrom((eb) => [
    eb
      .exists(
        eb
          .selectFrom('jobs')
          .select('id')
          .where('unfinished', '=', UNFINISHED)
          .where('phase', 'in', SLOT_WAITING_PHASE_LITERALS)
          .limit(1),
      )
      .as('queued'),
    eb.exists(wokenJobs(db, now).limit(1)).as('woken'),
    eb.selectFrom('scheduler_state').select('round_json').where('id', '=', 1).as('round'),
  ]),
);

/**
 * One planning pass in the caller's transaction: snapshot, plan, persist the round, freeze each
 * admitted job. Serialized across servers by the scheduler row lock (PostgreSQL) or the write
 * lock (SQLite).
 */
export function admit(scope: WriteScope, args: AdmitArgs): Promise<AdmittedJob[]> {
  return admitWith(scope, args, null);
}

/** {@link admit} with `ride`: the active jobs per owner asked right behind the planning lock's read. */
async function admitWith(scope: WriteScope, args: AdmitArgs, ride: RiddenEnqueue | null): Promise<AdmittedJob[]> {
  const round = readRound(scope);
  const active = readActive(scope);
  const ahead = candidatesAhead(scope, args);
  return planAndFreeze(scope, args, await round, await active, ride, ahead);
}

/**
 * PostgreSQL: the candidates asked with the planning lock's read and the active jobs, before their
 * answers, with as many heads per owner as a pass with no active job asks (`readCandidatesAhead`):
 * one round trip instead of two under the planning lock every other server's pass waits for
 * (decision 0256). Null on SQLite, where a read costs no round trip and asks for what it needs.
 */
function candidatesAhead(scope: WriteScope, args: AdmitArgs): Promise<readonly CandidateRow[]> | null {
  if (scope.dialect !== 'postgres') return null;
  return readCandidatesAhead(scope, headsPerOwner(args.capacity ?? Limits.activeJobs, 0) + (args.leftOut ?? 0));
}

/**
 * {@link admit} for an admission that rides an enqueue: on PostgreSQL only if the planning lock is
 * free now (null, with nothing read or written, when another transaction holds it or its row is
 * missing), and with every team lock taken only if free (see `freezeOne`). On SQLite the write
 * lock is the planning lock, and the caller holds it: always admits.
 *
 * @remarks The enqueue already holds its team's lock, and a pass takes the planning lock before
 * any team's, so waiting here could deadlock against a pass (and would make the request wait for
 * it). Never waiting, it cannot (decision 0229).
 */
export async function admitIfFree(
  scope: WriteScope,
  args: AdmitArgs,
  ride: RiddenEnqueue,
): Promise<AdmittedJob[] | null> {
  if (scope.dialect !== 'postgres') return admitWith(scope, args, ride);
  const locking = ROUND_IF_FREE.rows(scope.trx);
  const active = readActive(scope);
  // Read for nothing when the lock is not free: a read, which changes nothing.
  const ahead = candidatesAhead(scope, args);
  const [row] = await locking;
  if (row === undefined) {
    // Its reads went with the lock's read, and their answers with its own: awaited, so one that
    // failed (a statement timeout) fails the ride here, rolled back to its savepoint, and not the
    // enqueue's COMMIT.
    await active;
    await ahead;
    return null;
  }
  const round = readStoredRound(row.round_json) ?? (await storeEmptyRound(scope));
  return planAndFreeze(scope, args, round, await active, ride, ahead);
}

/** Plans with the locked `round` and freezes what the plan admits (see {@link admit} and {@link admitIfFree}). */
async function planAndFreeze(
  scope: WriteScope,
  args: AdmitArgs,
  round: RoundState,
  activeRows: readonly { owner: string; n: number | string }[],
  ride: RiddenEnqueue | null,
  ahead: Promise<readonly CandidateRow[]> | null,
): Promise<AdmittedJob[]> {
  const activeByOwner = new Map(activeRows.map((row) => [asOwnerId(row.owner), Number(row.n)]));
  const active = [...activeByOwner.values()].reduce((sum, n) => sum + n, 0);
  const capacity = args.capacity ?? Limits.activeJobs;
  // The heads `plan` will leave out (set-aside jobs) are read on top: else they could be an
  // owner's only heads read, and its newer work would never be seen while they keep failing.
  const perOwner = headsPerOwner(capacity, active) + (args.leftOut ?? 0);
  const candidates =
    ahead === null ? await readCandidates(scope, perOwner) : await candidatesReadAhead(scope, ahead, perOwner);
  const plan = args.plan({ active, activeByOwner, candidates, round, capacity });
  // Every candidate admitted: the empty round the next pass would store, stored now (one commit less).
  const next = JSON.stringify(settledRound(plan, candidates));
  // The row lock is held either way; an unchanged round needs no write.
  if (next !== JSON.stringify(round)) await storeRound(scope, next);
  const toFreeze = admittedCandidates(plan.admit, candidates, capacity - active);
  // PostgreSQL: every freeze's locked read sent before the first answer (decision 0258).
  // A ride's own jobs: answered with its planning lock (a failed insert failed that lock first).
  const inserted = ride === null ? null : await ride.inserted();
  const locks = lockAhead(scope, toFreeze, inserted);
  // One job's own failure names the job (the scheduler sets it aside and admits the rest), so
  // does its write checked later (`pg-held-connection.ts`); the database's own is everyone's.
  const blameOf = (jobId: JobId, teamId: TeamId) => (error: unknown) =>
    isEnvironmentError(error, scope.dialect) ? error : new AdmissionJobError(jobId, teamId, error);
  const failed = await answeredAhead(locks);
  if (failed !== undefined) {
    throw blameOf(failed.jobId, failed.teamId)(failed.error);
  }
  const admitted: AdmittedJob[] = [];
  for (const { jobId, teamId } of toFreeze) {
    const blame = blameOf(jobId, teamId);
    const frozen = await blamed(scope.trx, blame, () =>
      freezeOne(scope, jobId, teamId, args, inserted, locks.get(jobId)),
    ).catch((error: unknown) => {
      throw blame(error);
    });
    if (frozen !== null) admitted.push(frozen);
  }
  return admitted;
}
