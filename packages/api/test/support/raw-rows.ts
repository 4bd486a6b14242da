import type { Insertable, Kysely } from 'kysely';
import type { Database, TeamsTable } from '../../src/storage/database-types.js';

/**
 * Inserts a READY team row of alice's straight into the table (no store, no events): for tests of
 * what sits beside the teams (migrations, member-run tokens) that need a team to point at.
 */
export async function insertTeamRow(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db
    .insertInto('teams')
    .values(teamRowValues(id, 'T', now))
    .execute();
}

/** The columns of a READY team row of alice's named `name` (its create request id is its id). */
export function teamRowValues(id: string, name: string, now: string): Insertable<TeamsTable> {
  return {
    id,
    owner: 'alice',
    client_request_id: id,
    fingerprint: 'f',
    name,
    goal: 'G',
    status: 'READY',
    revision: 0,
    last_event_seq: 0,
    created_at: now,
    updated_at: now,
  };
}
