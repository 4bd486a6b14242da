import type { TeamId } from '@agent-teams/core';
import { sql } from 'kysely';
import type { Harness } from './scheduler-harness.js';

/**
 * Makes the database refuse every change of phase of `teamId`'s jobs (their admission's first
 * write): a job's own admission failure, real on SQLite and PostgreSQL (a trigger).
 */
export async function refuseAdmission(harness: Harness, teamId: TeamId): Promise<void> {
  const { db, dialect } = harness.database;
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_admission BEFORE UPDATE OF phase ON jobs
         WHEN NEW.team_id = '${teamId}' AND NEW.phase <> 'QUEUED'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_admission() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER refuse_admission BEFORE UPDATE ON jobs FOR EACH ROW
       WHEN (NEW.team_id = '${teamId}' AND NEW.phase <> 'QUEUED') EXECUTE FUNCTION refuse_admission()`,
    )
    .execute(db);
}

/** Lets the database take the writes again. */
export async function allowAdmission(harness: Harness): Promise<void> {
  const { db, dialect } = harness.database;
  if (dialect === 'sqlite') {
    await sql.raw('DROP TRIGGER refuse_admission').execute(db);
    return;
  }
  await sql.raw('DROP TRIGGER refuse_admission ON jobs').execute(db);
  await sql.raw('DROP FUNCTION refuse_admission()').execute(db);
}
