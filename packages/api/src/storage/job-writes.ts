import {
  asRecordId,
  isAnswerReplay,
  type Job,
  type JobEffect,
  type JobId,
  type JobLease,
  type NewReceipt,
  notFound,
  type OwnerId,
  queuedReceipt,
  type RespondToJobArgs,
  TeamEventKind,
  type TeamId,
  type TransitionOutcome,
} from '@agent-teams/core';
import { completeBroadcast } from './broadcast-receipts.js';
import { CompiledStatement } from './compiled-statement.js';
import { keepFollowUp } from './dropped-follow-ups.js';
import { checkLease } from './job-leases.js';
import { JOB_BY_ID } from './job-reads.js';
import { insertJob, type StepLease, writeJobStep } from './job-row-writes.js';
import { appendRecord } from './record-writes.js';
import { jobStateUpdate, toJob } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

async function readJob(scope: WriteScope, jobId: JobId): Promise<Job> {
  const [row] = await JOB_BY_ID.rows(scope.trx, jobId);
  if (row === undefined) throw new Error(`[agent-teams/api] job ${jobId} is gone mid-transaction`);
  return toJob(row);
}

/**
 * Loads a job under its team's lock, asks `decide`, and persists the outcome with the offered end
 * of the run it records, if any (`run-rides.ts`). NOT_FOUND when the job is absent or (with
 * `owner`) another owner's; `ok:false` is thrown; the same job object back means no change and
 * nothing is written.
 */
export async function updateJob(
  scope: WriteScope,
  jobId: JobId,
  decide: (job: Job) => TransitionOutcome,
  owner: OwnerId | undefined,
  lease?: JobLease,
): Promise<{ job: Job; changed: boolean }> {
  const row = await lockedJobRow(scope, jobId, owner, lease !== undefined);
  if (row === undefined || (owner !== undefined && row.owner !== owner)) throw notFound('job');
  if (lease !== undefined) checkLease(row, lease);
  const job = toJob(row);
  const outcome = decide(job);
  if (!outcome.ok) throw outcome.error;
  if (outcome.job === job) return { job, changed: false };
  const next = await applyTransition(scope, job, outcome);
  // The run the job records may have ended with its final write still offered: it commits here.
  // A fenced write is the scheduler's, decided on the run's announced end (`RunRides.claim`).
  if (next.runId !== null) await scope.carryRide(next.runId, lease !== undefined);
  return { job: next, changed: true };
}

/**
 * The job's row, read under its team's lock. On SQLite the transaction (`BEGIN IMMEDIATE`)
 * already holds the database's only write lock, so the row is read once and no team row is
 * read for nothing; on PostgreSQL the team row is locked first (the order every write of a
 * team takes), then the job row, locked too for a fenced write: a claim by another server
 * either happened before (the fence check refuses) or waits until this write committed.
 */
async function lockedJobRow(scope: WriteScope, jobId: JobId, owner: OwnerId | undefined, fenced: boolean) {
  if (scope.dialect === 'sqlite') return (await JOB_BY_ID.rows(scope.trx, jobId))[0];
  // The scheduler's write (every step of every job): both locks in one round trip.
  if (fenced && owner === undefined) return (await JOB_FOR_UPDATE_UNDER_TEAM.rows(scope.trx, jobId))[0];
  // The job's team, locked, in one round trip: another owner's job (or none) locks nothing.
  const [team] = await (owner === undefined
    ? TEAM_OF_JOB_FOR_UPDATE.rows(scope.trx, jobId)
    : TEAM_OF_OWNED_JOB_FOR_UPDATE.rows(scope.trx, jobId, owner));
  if (team === undefined) return undefined;
  return (await (fenced ? JOB_FOR_UPDATE : JOB_BY_ID).rows(scope.trx, jobId))[0];
}

/** PostgreSQL: the team of a job, locked (`FOR UPDATE` of the team row only). */
const TEAM_OF_JOB_FOR_UPDATE = new CompiledStatement(1, (db, jobId: string) =>
  db
    .selectFrom('teams')
    .select('id')
    .where('id', '=', (eb) => eb.selectFrom('jobs').select('team_id').where('id', '=', jobId))
    .forUpdate(),
);

/** Like {@link TEAM_OF_JOB_FOR_UPDATE}, for a job of `owner` only. */
const TEAM_OF_OWNED_JOB_FOR_UPDATE = new CompiledStatement(2, (db, jobId: string, owner: string) =>
  db
    .selectFrom('teams')
    .select('id')
    .where('id', '=', (eb) =>
      eb.selectFrom('jobs').select('team_id').where('id', '=', jobId).where('owner', '=', owner),
    )
    .forUpdate(),
);

/**
 * PostgreSQL: a job's row, locked under its team's lock, in one statement. The team row is
 * locked first, as every write of a team takes them: the job's filter reads the (materialized)
 * CTE, so the CTE has run, and waited for the team, before the job row is locked. The job row
 * is the one current at its lock (READ COMMITTED rechecks a row updated since the statement
 * began), as the separate read after the team lock saw it. No team (deleted): no row.
 */
const JOB_FOR_UPDATE_UNDER_TEAM = new CompiledStatement(1, (db, jobId: string) =>
  db
    .with(
      (cte) => cte('locked_team').materialized(),
      (qb) =>
        qb
          .selectFrom('teams')
          .select('id')
          .where('id', '=', (eb) => eb.selectFrom('jobs').select('team_id').where('id', '=', jobId))
          .forUpdate(),
    )
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', jobId)
    .where('team_id', '=', (eb) => eb.selectFrom('locked_team').select('id'))
    .forUpdate(),
);

/** PostgreSQL: a job's row, locked. */
const JOB_FOR_UPDATE = new CompiledStatement(1, (db, jobId: string) =>
  db.selectFrom('jobs').selectAll().where('id', '=', jobId).forUpdate(),
);

/**
 * Records an answer under the job's team lock: a used key answers the job as it is (same
 * fingerprint) or IDEMPOTENCY_CONFLICT; a new key runs `decide`, persists it and stores the key.
 */
export async function respondToJob(
  scope: WriteScope,
  args: RespondToJobArgs,
): Promise<{ job: Job; replayed: boolean }> {
  const located = await scope.trx
    .selectFrom('jobs')
    .select(['team_id', 'owner'])
    .where('id', '=', args.jobId)
    .executeTakeFirst();
  if (located === undefined || located.owner !== args.owner) {
    throw notFound('job');
  }
  await scope.lockTeam(located.team_id as TeamId);
  const used = await scope.trx
    .selectFrom('job_responses')
    .select('fingerprint')
    .where('job_id', '=', args.jobId)
    .where('client_request_id', '=', args.clientRequestId)
    .executeTakeFirst();
  const job = await readJob(scope, args.jobId);
  if (isAnswerReplay(used?.fingerprint, args.fingerprint)) return { job, replayed: true };
  const outcome = args.decide(job);
  if (!outcome.ok) throw outcome.error;
  const next = outcome.job === job ? job : await applyTransition(scope, job, outcome);
  await scope.trx
    .insertInto('job_responses')
    .values({
      job_id: args.jobId,
      client_request_id: args.clientRequestId,
      team_id: job.teamId,
      fingerprint: args.fingerprint,
      created_at: scope.now,
    })
    .execute();
  return { job: next, replayed: false };
}

/**
 * Persists one state-machine step: the next job, its APPEND_RECORD and CREATE_RECEIPT effects,
 * and the events (JOB_CHANGED; MEMBER_CHANGED when the phase moved, since the member's derived
 * status may follow it). Returns the job as stored.
 */
export async function applyTransition(
  scope: WriteScope,
  current: Job,
  outcome: { readonly job: Job; readonly effects: readonly JobEffect[] },
): Promise<Job> {
  return (await writeTransition(scope, current, outcome, null)).job;
}

/**
 * {@link applyTransition} for an admitted job that also leases it to `serverId`, in the same
 * statement. `fenceBefore`: the job row's fence as read under its team's lock in this transaction.
 */
export async function applyAdmission(
  scope: WriteScope,
  current: Job,
  outcome: { readonly job: Job; readonly effects: readonly JobEffect[] },
  serverId: string,
  fenceBefore?: number,
): Promise<{ job: Job; lease: JobLease }> {
  const lease = { to: serverId, fenceBefore };
  const { job, fence } = await writeTransition(scope, current, outcome, lease);
  return { job, lease: { serverId, fence } };
}

/**
 * Writes the step: the state columns it changes (see {@link jobStateUpdate}, {@link writeJobStep}),
 * then its events and effects. `current` must be the job as read in this transaction.
 */
async function writeTransition(
  scope: WriteScope,
  current: Job,
  outcome: { readonly job: Job; readonly effects: readonly JobEffect[] },
  lease: StepLease | null,
): Promise<{ job: Job; fence: number }> {
  const next = outcome.job;
  if (next.id !== current.id) throw new Error('[agent-teams/api] a transition must return the same job');
  const update = jobStateUpdate(current, next, scope.now);
  const fence = await writeJobStep(scope.trx, scope.dialect, current.id, update.columns, lease);
  scope.events.rows.noteJob(update.job);
  await scope.events.emit(current.teamId, TeamEventKind.JOB_CHANGED, { jobId: current.id });
  if (next.phase !== current.phase && current.memberId !== null) {
    await scope.events.emit(current.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: current.memberId });
  }
  for (const effect of outcome.effects) {
    if (effect.type === 'APPEND_RECORD') {
      await appendRecord(scope, {
        // Without an id port, one terminal record per job makes an id derived from the job unique.
        id: scope.ids?.recordId() ?? asRecordId(`record_${current.id}_${effect.kind.toLowerCase()}`),
        teamId: current.teamId,
        kind: effect.kind,
        jobId: current.id,
        memberId: effect.memberId,
        fromMemberId: effect.fromMemberId,
        text: effect.text,
        truncated: effect.truncated,
      });
    } else if (effect.type === 'CREATE_RECEIPT') {
      await insertReceipt(scope, current, effect.receipt);
    }
  }
  await completeBroadcast(scope, next);
  await keepFollowUp(scope, current, next);
  return { job: update.job, fence };
}

/** Inserts the receipt of a finished request (unique per request by index). */
async function insertReceipt(scope: WriteScope, request: Job, receipt: NewReceipt): Promise<void> {
  const job = queuedReceipt(receipt, request, scope.now);
  await insertJob(scope.trx, job, scope.now);
  await scope.events.emit(request.teamId, TeamEventKind.JOB_CHANGED, { jobId: job.id });
  if (job.memberId !== null) {
    await scope.events.emit(request.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: job.memberId });
  }
}
