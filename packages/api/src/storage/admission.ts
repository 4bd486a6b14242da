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
  headsPerOwner,
  type JobId,
  JobPhase,
  Limits,
  type RoundState,
  settledRound,
  type TeamId,
  TeamStatus,
} from '@agent-teams/core';
import { type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
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
 * The head job of each conversation with unfinished work, when that head waits for a slot (QUEUED
 * or ANSWERED) and its team is READY (or CLOSED: see `freezeJob`): each owner's oldest `perOwner`
 * of them (`headsPerOwner`); and every woken wait. Reads only unfinished rows (partial indexes),
 * never the finished history.
 */
function candidates(db: Kysely<Database>, now: string, perOwner: number) {
  // The head after a conversation: the first entry of the partial (conversation, seq) index past
  // it, so one seek gives the next conversation and its head at once.
  // Built from the expression builder, as any subquery: one built from `db` would go through its
  // plugins as a statement of its own.
  const headAfter = (eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, after: Expression<string> | null) => {
    let next = eb.selectFrom('jobs as n').select('n.seq').where('n.unfinished', '=', UNFINISHED);
    if (after !== null) next = next.where('n.conversation_id', '>', after);
    return next.orderBy('n.conversation_id').orderBy('n.seq').limit(1);
  };
  // A loose scan of the partial index, one seek per conversation (SQLite and PostgreSQL alike): a
  // backlog of thousands of queued jobs costs what its conversations cost (measured with a
  // subquery per queued job and the scan: SQLite, 3,000 queued over 24 conversations, 4.2 → 0.1
  // ms; PostgreSQL, 5,000 queued over 60 conversations among 25,000 jobs, 46 → 5 ms). Each step
  // carries only the head's key; the rows of the heads past `perOwner` are never sent out.
  const heads = db
    .withRecursive('c(conv, seq)', (db) =>
      db
        .selectFrom('jobs')
        .select(['conversation_id as conv', 'seq'])
        .where('seq', '=', (eb) => headAfter(eb, null))
        .unionAll((db) =>
          db
            .selectFrom('c')
            .innerJoin('jobs as j', (join) =>
              join.on((eb) => eb('j.seq', '=', headAfter(eb, sql.ref<string>('c.conv')))),
            )
            .select(['j.conversation_id as conv', 'j.seq']),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        // CROSS JOIN keeps SQLite's join order (each head by its key) whatever its statistics say.
        .crossJoin('jobs as j')
        .whereRef('j.seq', '=', 'c.seq')
        .select((eb) => [
          'j.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('j.owner').orderBy('j.seq'))
            .as('rank'),
        ])
        .where('j.phase', 'in', [JobPhase.QUEUED, JobPhase.ANSWERED])
        // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
        // Each head's team by its key: PostgreSQL cannot see how many heads the scan yields, and
        // given a join it compared every head with every team.
        .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'j.team_id'), 'in', [
          TeamStatus.READY,
          TeamStatus.CLOSED,
        ]),
    )
    .selectFrom('w')
    .crossJoin('jobs as j')
    .whereRef('j.seq', '=', 'w.seq')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq'])
    .where('w.rank', '<=', perOwner);
  // One statement for both kinds (one round trip on PostgreSQL).
  return heads.unionAll(wokenJobs(db, now));
}

/** {@link candidates}, compiled once (`compiled-statement.ts`): its building cost more than its run. */
const CANDIDATES = new CompiledStatement(2, candidates);

async function readCandidates(scope: WriteScope, perOwner: number): Promise<AdmissionCandidate[]> {
  // In queue order.
  const rows = await CANDIDATES.rows(scope.trx, scope.now, perOwner);
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
  const capacity = args.capacity ?? Limits.activeJobs;
  const candidates = await readCandidates(scope, headsPerOwner(capacity, active));
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
