import type { TeamId } from '@agent-teams/core';
import type { Selectable } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { JobsTable, TeamsTable } from './database-types.js';
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
 * The team's row, locked (`WriteScope.lockTeam`), and its job `jobId` read under that lock: one
 * round trip on PostgreSQL (the job row locked too: the caller's transaction writes it next),
 * two plain reads on SQLite (its write lock is held already). Undefined when the team is gone or
 * `jobId` is not one of its jobs.
 */
export async function lockTeamWithJob(
  scope: WriteScope,
  teamId: TeamId,
  jobId: string,
): Promise<{ team: Selectable<TeamsTable>; job: Selectable<JobsTable> } | undefined> {
  if (scope.dialect !== 'postgres') {
    const team = await scope.lockTeam(teamId);
    const [job] = team === undefined ? [] : await JOB_BY_ID.rows(scope.trx, jobId);
    return team === undefined || job === undefined || job.team_id !== teamId ? undefined : { team, job };
  }
  const [row] = await TEAM_AND_JOB_FOR_UPDATE.rows(scope.trx, teamId, jobId);
  if (row === undefined) return undefined;
  const record = row as unknown as Record<string, unknown>;
  const job: Record<string, unknown> = {};
  const team: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key.startsWith(PREFIX)) team[key.slice(PREFIX.length)] = value;
    else job[key] = value;
  }
  return { team: team as Selectable<TeamsTable>, job: job as Selectable<JobsTable> };
}
