import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';

/**
 * Inserts a READY team row of alice's straight into the table (no store, no events): for tests of
 * what sits beside the teams (migrations, member-run tokens) that need a team to point at.
 */
export async function insertTeamRow(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db
    .insertInto('teams')
    .values({
      id,
      owner: 'alice',
      client_request_id: 'c',
      fingerprint: 'f',
      name: 'T',
      goal: 'G',
      status: 'READY',
      revision: 0,
      last_event_seq: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
