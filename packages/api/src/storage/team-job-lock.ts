import type { TeamId } from '@agent-teams/core';
import { type Selectable, sql } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { JobsTable, TeamsTable } from './database-types.js';
import {
  FREEZE_READ_SHAPES,
  type FreezeReadRows,
  type FreezeReads,
  freezeReadColumns,
  freezeReadShape,
  takeFreezeReads,
} from './freeze-reads.js';
import { JOB_BY_ID } from './job-reads.js';
import type { WriteScope } from './write-transaction.js';

/** Every `teams` column, returned beside the job's under a prefix (the tables share names). */
const TEAM_COLUMNS = [
  'seq',
  'id',
  'owner',
  'client_request_id',
  'fingerprint',
  'name',
  'goal',
  'status',
  'revision',
  'last_event_seq',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof TeamsTable)[];
const PREFIX = 'team__';

/** One compiled statement per shape of {@link FreezeReads}, the shape's own picked. */
function perShape<P extends unknown[], R>(build: (reads: FreezeReads) => CompiledStatement<P, R>) {
  const statements = FREEZE_READ_SHAPES.map(build);
  return (reads: FreezeReads): CompiledStatement<P, R> => {
    const statement = statements[freezeReadShape(reads)];
    if (statement === undefined) throw new Error('[agent-teams/api] no statement for these freeze reads');
    return statement;
  };
}

/**
 * PostgreSQL: a team row locked, and a job of that team locked under it, in one statement. The
 * team is locked in a materialized `WITH` the join reads, so it is taken (and waited for) before
 * the job row is; the job row comes back as current at its lock (READ COMMITTED rechecks a row
 * updated since the statement began), as a read after the team's lock saw it.
 */
const TEAM_AND_JOB_FOR_UPDATE = new CompiledStatement(2, (db, teamId: string, jobId: string) =>
  db
    .with(
      (cte) => cte('locked_team').materialized(),
      (qb) => qb.selectFrom('teams').selectAll().where('id', '=', teamId).forUpdate(),
    )
    .selectFrom('locked_team')
    .innerJoin('jobs', 'jobs.team_id', 'locked_team.id')
    .selectAll('jobs')
    .select((eb) => TEAM_COLUMNS.map((column) => eb.ref(`locked_team.${column}`).as(`${PREFIX}${column}`)))
    .where('jobs.id', '=', jobId)
    .forUpdate('jobs'),
);

/**
 * PostgreSQL: what the freeze of job `jobId` reads (`freeze-reads.ts`), as a statement of its own
 * sent right behind {@link TEAM_AND_JOB_FOR_UPDATE}, before its answer (decision 0250, corrected
 * on 2026-12-07).
 *
 * @remarks Not subqueries of the locking statement: at READ COMMITTED a statement reads as of its
 * start, and one that waited for the team's lock would not see what the lock's holder committed
 * (a message copy sent to the member, a member retired), though it recheck the rows it locked. The
 * server runs a connection's statements in the order sent, so this one starts once the lock is
 * held, with a snapshot of its own: the same round trip, read after the lock.
 */
const FREEZE_READS_AFTER_LOCK = perShape(
  (reads) =>
    new CompiledStatement(2, (db, teamId: string, jobId: string) =>
      db
        .selectFrom('teams')
        .select(freezeReadColumns(reads, 'teams', sql`(select member_id from jobs where id = ${jobId})`))
        .where('id', '=', teamId),
    ),
);

/**
 * PostgreSQL: a team's row locked unless another transaction holds it (`WriteScope.lockTeamIfFree`),
 * with what the freeze of member `memberId`'s job reads (decision 0250); no row when it is held.
 */
const TEAM_IF_FREE = perShape(
  (reads) =>
    new CompiledStatement(2, (db, teamId: string, memberId: string) =>
      db
        .selectFrom('teams')
        .selectAll()
        .select(freezeReadColumns(reads, 'teams', sql`${memberId}`))
        .where('id', '=', teamId)
        .forUpdate()
        .skipLocked(),
    ),
);

/** A team row locked and its job read under that lock, with what the freeze asked of the read. */
export interface LockedTeamJob extends FreezeReadRows {
  readonly team: Selectable<TeamsTable>;
  readonly job: Selectable<JobsTable>;
}

/**
 * The team's row, locked (`WriteScope.lockTeam`), and its job `jobId` read under that lock: one
 * round trip on PostgreSQL (the job row locked too: the caller's transaction writes it next), with
 * the `reads` of the job's freeze; two plain reads on SQLite (its write lock is held already), whose
 * other reads cost no round trip and stay the caller's. Undefined when the team is gone or `jobId`
 * is not one of its jobs.
 */
export async function lockTeamWithJob(
  scope: WriteScope,
  teamId: TeamId,
  jobId: string,
  reads: FreezeReads = { roster: false, records: false },
): Promise<LockedTeamJob | undefined> {
  if (scope.dialect !== 'postgres') {
    const team = await scope.lockTeam(teamId);
    const [job] = team === undefined ? [] : await JOB_BY_ID.rows(scope.trx, jobId);
    return team === undefined || job === undefined || job.team_id !== teamId ? undefined : { team, job };
  }
  const locking = TEAM_AND_JOB_FOR_UPDATE.rows(scope.trx, teamId, jobId);
  const reading = FREEZE_READS_AFTER_LOCK(reads).rows(scope.trx, teamId, jobId);
  // Told below; never awaited when the lock failed first.
  reading.catch(() => undefined);
  const [row] = await locking;
  const [readRow] = await reading;
  if (row === undefined) return undefined;
  const { reads: brought } = takeFreezeReads(readRow ?? {});
  const job: Record<string, unknown> = {};
  const team: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(PREFIX)) team[key.slice(PREFIX.length)] = value;
    else job[key] = value;
  }
  return { team: team as Selectable<TeamsTable>, job: job as Selectable<JobsTable>, ...brought };
}

/**
 * The team's row locked if no other transaction holds it (`WriteScope.lockTeamIfFree`), for the
 * freeze of a job of member `memberId` (null: none): on PostgreSQL with the `reads` of that freeze
 * in the same round trip. Undefined when the team is held (or gone).
 */
export async function lockTeamIfFreeWithReads(
  scope: WriteScope,
  teamId: TeamId,
  memberId: string | null,
  reads: FreezeReads,
): Promise<({ readonly team: Selectable<TeamsTable> } & FreezeReadRows) | undefined> {
  if (scope.dialect !== 'postgres' || memberId === null) {
    const team = await scope.lockTeamIfFree(teamId);
    return team === undefined ? undefined : { team };
  }
  const [row] = await TEAM_IF_FREE(reads).rows(scope.trx, teamId, memberId);
  if (row === undefined) return undefined;
  const { rest, reads: brought } = takeFreezeReads(row);
  return { team: rest as Selectable<TeamsTable>, ...brought };
}
