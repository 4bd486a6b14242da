import { asAgentId, asConversationId, asMemberId, asOwnerId, type TeamId } from '@agent-teams/core';
import type { Insertable, Kysely } from 'kysely';
import type { Database, TeamsTable } from '../../src/storage/database-types.js';
import type { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';

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

/**
 * A team of one member (`member_1`, agent `a`, conversation `c_1`) created through `store` at
 * `now`, for tests that only need a team for events to belong to (the change follower's).
 */
export async function createOneMemberTeam(store: KyselyTeamStore, teamId: TeamId, now: string): Promise<void> {
  await store.createTeam(
    {
      id: teamId,
      owner: asOwnerId('alice'),
      clientRequestId: teamId,
      fingerprint: 'f',
      name: 'T',
      goal: 'G',
      members: [
        { id: asMemberId('member_1'), name: 'M', agentId: asAgentId('a'), conversationId: asConversationId('c_1') },
      ],
    },
    { now, maxTeams: 10 },
  );
}
