import {
  ACTIVE_PHASES,
  type AdmissionCandidate,
  type AdmitArgs,
  type AdmittedJob,
  asConversationId,
  asJobId,
  asOwnerId,
  asTeamId,
  EMPTY_ROUND,
  type JobId,
  JobPhase,
  Limits,
  type RoundState,
  settledRound,
  type TeamId,
  TeamStatus,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { readChanges, wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { JOB_BY_ID, UNFINISHED } from './job-reads.js';
import { applyAdmission, applyTransition } from './job-writes.js';
import { deliverFrozen, undeliveredMessages } from './mailbox.js';
import { recentRecords } from './record-reads.js';
import { toJob, toTeam, withoutSeq } from './row-mappers.js';
import { listMembers } from './team-reads.js';
import type { WriteScope } from './write-transaction.js';

/**
 * Phases that wait for a slot: QUEUED (to start), ANSWERED (to submit a person's answer) and
 * WAITING_CHANGE (to submit a woken wait's result; only once woken, see `readWoken`).
 */
const ADMISSIBLE_PHASES: readonly string[] = [JobPhase.QUEUED, JobPhase.ANSWERED, JobPhase.WAITING_CHANGE];

/**
 * The head job of every conversation with unfinished work, when that head waits for a slot
 * (QUEUED or ANSWERED) and its team is READY (or CLOSED: see `freezeJob`). Reads only unfinished rows (partial indexes), never the finished history.
 */
function candidates(db: Kysely<Database>, now: string) {
  // Each conversation with unfinished work once, by a loose scan of the partial index (one seek
  // per conversation, SQLite and PostgreSQL alike), then its head job: a backlog of thousands of
  // queued jobs costs what its conversations cost (measured with a subquery per queued job and
  // this way: SQLite, 3,000 queued over 24 conversations, 4.2 → 0.1 ms; PostgreSQL, 5,000 queued
  // over 60 conversations among 25,000 jobs, 46 → 5 ms).
  const heads = db
    .withRecursive('c(conv)', (db) =>
      db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min<string | null>('conversation_id').as('conv'))
        .where('unfinished', '=', UNFINISHED)
        .unionAll((eb) =>
          eb
            .selectFrom('c')
            .select((inner) =>
              inner
                .selectFrom('jobs')
                .select((next) => next.fn.min('conversation_id').as('conv'))
                .where('unfinished', '=', UNFINISHED)
                .whereRef('conversation_id', '>', 'c.conv')
                .as('conv'),
            )
            .where('c.conv', 'is not', null),
        ),
    )
    .selectFrom('c')
    .innerJoin('jobs as j', (join) =>
      join.on((eb) =>
        eb(
          'j.seq',
          '=',
          eb
            .selectFrom('jobs as h')
            .select((inner) => inner.fn.min('h.seq').as('head'))
            .where('h.unfinished', '=', UNFINISHED)
            .whereRef('h.conversation_id', '=', 'c.conv'),
        ),
      ),
    )
    .innerJoin('teams as t', 't.id', 'j.team_id')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq'])
    // Always true of a head, but it lets PostgreSQL, which may join by hashing, read only the
    // unfinished jobs (their partial index) instead of every job ever run.
    .where('j.unfinished', '=', UNFINISHED)
    .where('j.phase', 'in', [JobPhase.QUEUED, JobPhase.ANSWERED])
    // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
    .where('t.status', 'in', [TeamStatus.READY, TeamStatus.CLOSED]);
  // One statement for both kinds (one round trip on PostgreSQL).
  return heads.unionAll(wokenJobs(db, now));
}

/** {@link candidates}, compiled once (`compiled-statement.ts`): its building cost more than its run. */
const CANDIDATES = new CompiledStatement(1, candidates);

async function readCandidates(scope: WriteScope): Promise<AdmissionCandidate[]> {
  // In queue order.
  const rows = await CANDIDATES.rows(scope.trx, scope.now);
  return rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((row) => ({
      jobId: asJobId(row.id),
      owner: asOwnerId(row.owner),
      teamId: asTeamId(row.team_id),
      conversationId: asConversationId(row.conversation_id),
      seq: Number(row.seq),
    }));
}

/** The stored planning round; compiled once (`compiled-statement.ts`). */
const ROUND = new CompiledStatement(0, (db) =>
  db.selectFrom('scheduler_state').select('round_json').where('id', '=', 1),
);
/** The same, locked (PostgreSQL). */
const ROUND_FOR_UPDATE = new CompiledStatement(0, (db) =>
  db.selectFrom('scheduler_state').select('round_json').where('id', '=', 1).forUpdate(),
);

async function readRound(scope: WriteScope): Promise<RoundState> {
  // The single row is the cross-server planning lock on PostgreSQL.
  const [row] = await (scope.dialect === 'postgres' ? ROUND_FOR_UPDATE : ROUND).rows(scope.trx);
  if (row === undefined) {
    await scope.trx
      .insertInto('scheduler_state')
      .values({ id: 1, round_json: JSON.stringify(EMPTY_ROUND), updated_at: scope.now })
      .execute();
    return EMPTY_ROUND;
  }
  return JSON.parse(row.round_json) as RoundState;
}

async function freezeOne(
  scope: WriteScope,
  jobId: JobId,
  teamId: TeamId,
  args: AdmitArgs,
): Promise<AdmittedJob | null> {
  const teamRow = await scope.lockTeam(teamId);
  const [row] = await JOB_BY_ID.rows(scope.trx, jobId);
  // Changed since the candidates were read (cancelled by another server): not admitted.
  if (teamRow === undefined || row === undefined || !ADMISSIBLE_PHASES.includes(row.phase)) return null;
  const job = toJob(row);
  const outcome = args.freeze({
    job,
    team: withoutSeq(toTeam(teamRow)),
    members: await listMembers(scope.trx, [job.teamId]),
    recentRecords: await recentRecords(scope.trx, job.teamId, Limits.contextMessages),
    // Read under the team lock: a send to this member waits for this transaction, so a message
    // is either frozen into this turn or still undelivered for the next one, never both.
    mailbox: job.memberId === null ? [] : await undeliveredMessages(scope.trx, job.memberId),
    ...(job.phase === JobPhase.WAITING_CHANGE ? { changes: await readChanges(scope.trx, job) } : {}),
  });
  if (!outcome.ok) throw outcome.error;
  if (outcome.job === job) return null;
  const admitted =
    args.serverId === undefined
      ? { job: await applyTransition(scope, job, outcome) }
      : await applyAdmission(scope, job, outcome, args.serverId);
  await deliverFrozen(scope, admitted.job);
  return admitted;
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
  const round = JSON.parse(row.round) as RoundState;
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
          .where('phase', 'in', [JobPhase.QUEUED, JobPhase.ANSWERED])
          .limit(1),
      )
      .as('queued'),
    eb.exists(wokenJobs(db, now).limit(1)).as('woken'),
    eb.selectFrom('scheduler_state').select('round_json').where('id', '=', 1).as('round'),
  ]),
);

/** The active jobs per owner; compiled once (`compiled-statement.ts`). */
const ACTIVE_BY_OWNER = new CompiledStatement(0, (db) =>
  db
    .selectFrom('jobs')
    .select((eb) => ['owner', eb.fn.countAll<number | string>().as('n')])
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASES)
    .groupBy('owner'),
);

/**
 * One planning pass in the caller's transaction: snapshot, plan, persist the round, freeze each
 * admitted job. Serialized across servers by the scheduler row lock (PostgreSQL) or the write
 * lock (SQLite).
 */
export async function admit(scope: WriteScope, args: AdmitArgs): Promise<AdmittedJob[]> {
  const round = await readRound(scope);
  const activeRows = await ACTIVE_BY_OWNER.rows(scope.trx);
  const activeByOwner = new Map(activeRows.map((row) => [asOwnerId(row.owner), Number(row.n)]));
  const active = [...activeByOwner.values()].reduce((sum, n) => sum + n, 0);
  const candidates = await readCandidates(scope);
  const capacity = args.capacity ?? Limits.activeJobs;
  const plan = args.plan({ active, activeByOwner, candidates, round, capacity });
  // Every candidate admitted: the empty round the next pass would store, stored now (one commit less).
  const next = JSON.stringify(settledRound(plan, candidates));
  // The row lock is held either way; an unchanged round needs no write.
  if (next !== JSON.stringify(round)) {
    await scope.trx
      .updateTable('scheduler_state')
      .set({ round_json: next, updated_at: scope.now })
      .where('id', '=', 1)
      .execute();
  }
  const eligible = new Map<string, TeamId>(candidates.map((candidate) => [candidate.jobId, candidate.teamId]));
  const admitted: AdmittedJob[] = [];
  for (const jobId of plan.admit.slice(0, Math.max(0, capacity - active))) {
    // Only candidates, once each, within the free slots: a planner bug must not admit a blocked or finished job.
    const teamId = eligible.get(jobId);
    if (teamId === undefined) continue;
    eligible.delete(jobId);
    const frozen = await freezeOne(scope, jobId, teamId, args);
    if (frozen !== null) admitted.push(frozen);
  }
  return admitted;
}
