import {
  asMemberId,
  DomainError,
  ErrorCode,
  type NewTeam,
  notFound,
  type OwnerId,
  type Team,
  TeamEventKind,
  type TeamId,
  TeamStatus,
  teamChangedEvent,
} from '@agent-teams/core';
import { sql } from 'kysely';
import { UNFINISHED } from './job-reads.js';
import { literalLimit } from './literal-limit.js';
import { toTeam, withoutSeq } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

/** The team as this transaction left it (its events flushed first). */
export async function readTeam(scope: WriteScope, teamId: TeamId): Promise<Team> {
  // The events of this transaction move the team's revision and seq: write them first.
  await scope.events.flush();
  const row = await scope.trx.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirstOrThrow();
  return withoutSeq(toTeam(row));
}

/**
 * Inserts a team (CREATING) with its members, or answers the existing team of the same
 * (owner, clientRequestId). Run with unique-violation retry: a concurrent twin on another server
 * makes the retry find the twin's row.
 */
export async function createTeam(
  scope: WriteScope,
  team: NewTeam,
  maxTeams: number,
): Promise<{ team: Team; created: boolean }> {
  if (scope.dialect === 'postgres') {
    // Serializes one owner's creations across servers, so two cannot both pass the team limit.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`teams:${team.owner}`}, 0))`.execute(scope.trx);
  }
  const existing = await scope.trx
    .selectFrom('teams')
    .selectAll()
    .where('owner', '=', team.owner)
    .where('client_request_id', '=', team.clientRequestId)
    .executeTakeFirst();
  if (existing !== undefined) {
    if (existing.fingerprint !== team.fingerprint) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'clientRequestId already used for another team', {
        field: 'clientRequestId',
      });
    }
    return { team: withoutSeq(toTeam(existing)), created: false };
  }
  const owned = await scope.trx
    .selectFrom('teams')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner', '=', team.owner)
    .executeTakeFirstOrThrow();
  if (Number(owned.n) >= maxTeams) {
    throw new DomainError(ErrorCode.TEAM_LIMIT, 'The owner already has the maximum number of teams', {
      limit: maxTeams,
    });
  }
  await scope.trx
    .insertInto('teams')
    .values({
      id: team.id,
      owner: team.owner,
      client_request_id: team.clientRequestId,
      fingerprint: team.fingerprint,
      name: team.name,
      goal: team.goal,
      status: TeamStatus.CREATING,
      revision: 0,
      last_event_seq: 0,
      created_at: scope.now,
      updated_at: scope.now,
    })
    .execute();
  if (team.members.length > 0) {
    await scope.trx
      .insertInto('members')
      .values(
        team.members.map((member, position) => ({
          id: member.id,
          team_id: team.id,
          position,
          name: member.name,
          agent_id: member.agentId,
          conversation_id: member.conversationId,
          role: member.role ?? null,
          is_lead: member.isLead === true ? 1 : 0,
        })),
      )
      .execute();
    scope.events.rows.rosterChanged(team.id);
  }
  await scope.events.emit(team.id, TeamEventKind.TEAM_CHANGED);
  for (const member of team.members) {
    await scope.events.emit(team.id, TeamEventKind.MEMBER_CHANGED, { memberId: member.id });
  }
  return { team: await readTeam(scope, team.id), created: true };
}

/** Sets a team's status; a write only when it changes. NOT_FOUND for an absent team. */
export async function setTeamStatus(scope: WriteScope, teamId: TeamId, status: TeamStatus): Promise<Team> {
  const row = await scope.lockTeam(teamId);
  if (row === undefined) throw notFound('team');
  if (row.status === status) return withoutSeq(toTeam(row));
  await scope.trx.updateTable('teams').set({ status, updated_at: scope.now }).where('id', '=', teamId).execute();
  scope.events.rows.forgetTeam(teamId);
  await scope.events.emit(teamId, TeamEventKind.TEAM_CHANGED);
  // Member status dots derive from the team status (PROVISIONING while CREATING).
  const members = await scope.trx
    .selectFrom('members')
    .select('id')
    .where('team_id', '=', teamId)
    .orderBy('position')
    .execute();
  for (const member of members) {
    await scope.events.emit(teamId, TeamEventKind.MEMBER_CHANGED, { memberId: asMemberId(member.id) });
  }
  return readTeam(scope, teamId);
}

/**
 * Deletes a team; members, jobs, record and events go with it (ON DELETE CASCADE), member
 * conversations stay.
 *
 * @remarks The log goes with the team, so the final TEAM_CHANGED (seq one past the last) is only
 * published, not stored: a live subscriber re-reads the team and finds it gone.
 */
export async function deleteTeam(scope: WriteScope, owner: OwnerId, teamId: TeamId): Promise<void> {
  const row = await scope.lockOwnedTeam(owner, teamId);
  const pending = await scope.trx
    .selectFrom('jobs')
    .select('id')
    .where('team_id', '=', teamId)
    .where('unfinished', '=', UNFINISHED)
    // A literal: a bound limit re-plans the statement at every run (`literal-limit.ts`).
    .limit(literalLimit(1))
    .executeTakeFirst();
  if (pending !== undefined) {
    throw new DomainError(ErrorCode.PENDING_WORK, 'The team has unfinished jobs; cancel them or let them finish');
  }
  await scope.trx.deleteFrom('teams').where('id', '=', teamId).execute();
  // Budgets have no foreign key (migration 0010); recorded usage stays: it counts in the owner's day.
  await scope.trx.deleteFrom('team_budgets').where('team_id', '=', teamId).execute();
  const seq = Number(row.last_event_seq) + 1;
  // Other servers' subscribers learn of the deletion from this tombstone (the log is gone); a day
  // of tombstones is plenty for a feed that polls every 250 ms.
  await scope.trx.deleteFrom('team_deletions').where('created_at', '<', dayBefore(scope.now)).execute();
  await scope.trx
    .insertInto('team_deletions')
    .values({ team_id: teamId, owner, seq, created_at: scope.now })
    .onConflict((oc) => oc.column('team_id').doUpdateSet({ owner, seq, created_at: scope.now }))
    .execute();
  scope.events.announce(teamChangedEvent(teamId, owner, seq, scope.now));
}

function dayBefore(now: string): string {
  return new Date(Date.parse(now) - 24 * 60 * 60 * 1_000).toISOString();
}
