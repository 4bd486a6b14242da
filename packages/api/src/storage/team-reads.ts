import type { Member, MemberId, OwnerId, SeqPage, SeqPageRequest, Team, TeamId, TeamStatus } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { CompiledListStatement, CompiledStatement, ID_LIST_PLANNED } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { toMember, toTeam, withoutSeq } from './row-mappers.js';

// Reads of teams and members. Each takes the database or a transaction, so writes reuse them.

/** Orders `items` as their ids appear in `ids` (batch loaders rely on a stable order). */
export function inInputOrder<T>(ids: readonly string[], items: readonly T[], idOf: (item: T) => string): T[] {
  const byId = new Map(items.map((item) => [idOf(item), item]));
  const seen = new Set<string>();
  const ordered: T[] = [];
  for (const id of ids) {
    const item = byId.get(id);
    if (item !== undefined && !seen.has(id)) {
      seen.add(id);
      ordered.push(item);
    }
  }
  return ordered;
}

/** A team row by id, scoped to its owner; compiled once. */
const OWNED_TEAM = new CompiledStatement(2, (db, teamId: string, owner: string) =>
  db.selectFrom('teams').selectAll().where('id', '=', teamId).where('owner', '=', owner),
);

/** The owner's team, or null (another owner's team reads as absent). */
export async function findTeam(db: Kysely<Database>, owner: OwnerId, teamId: TeamId): Promise<Team | null> {
  const [row] = await OWNED_TEAM.rows(db, teamId, owner);
  return row === undefined ? null : withoutSeq(toTeam(row));
}

/** Rows of `teams` by id, the statement compiled once per list length (`compiled-statement.ts`). */
const TEAMS_BY_ID = new CompiledListStatement(ID_LIST_PLANNED, (db, ids) =>
  db.selectFrom('teams').selectAll().where('id', 'in', ids),
);

/** Teams by id, any owner, in the order asked; missing ids skipped. */
export async function findTeams(db: Kysely<Database>, teamIds: readonly TeamId[]): Promise<Team[]> {
  if (teamIds.length === 0) return [];
  const rows = await TEAMS_BY_ID.rows(db, [...new Set(teamIds)]);
  return inInputOrder(
    teamIds,
    rows.map((row) => withoutSeq(toTeam(row))),
    (team) => team.id,
  );
}

/** The owner's teams, newest first, keyset-paged on the creation seq. */
export async function listTeams(
  db: Kysely<Database>,
  owner: OwnerId,
  page: SeqPageRequest,
): Promise<SeqPage<Team & { readonly seq: number }>> {
  let query = db.selectFrom('teams').selectAll().where('owner', '=', owner);
  if (page.afterSeq !== null) query = query.where('seq', '<', page.afterSeq);
  const rows = await query
    .orderBy('seq', 'desc')
    // Bound: a caller's page size (1–100); in the text it would add a statement per size to a
    // statement cache of 500 texts and could evict a turn's (decision 0231).
    .limit(page.first + 1)
    .execute();
  return { items: rows.slice(0, page.first).map(toTeam), hasNextPage: rows.length > page.first };
}

/** Teams in a status, any owner, oldest first. */
export async function listTeamsByStatus(db: Kysely<Database>, status: TeamStatus): Promise<Team[]> {
  const rows = await db.selectFrom('teams').selectAll().where('status', '=', status).orderBy('seq').execute();
  return rows.map((row) => withoutSeq(toTeam(row)));
}

/** Rows of `members` of teams, in roster order, compiled once per list length. */
const MEMBERS_BY_TEAM = new CompiledListStatement(ID_LIST_PLANNED, (db, teamIds) =>
  db.selectFrom('members').selectAll().where('team_id', 'in', teamIds).orderBy('position'),
);

/** Members of the given teams: teams in the order asked, each in roster order. */
export async function listMembers(db: Kysely<Database>, teamIds: readonly TeamId[]): Promise<Member[]> {
  if (teamIds.length === 0) return [];
  const rows = await MEMBERS_BY_TEAM.rows(db, [...new Set(teamIds)]);
  const order = new Map(teamIds.map((id, index) => [id as string, index]));
  return rows.map(toMember).sort((a, b) => (order.get(a.teamId) ?? 0) - (order.get(b.teamId) ?? 0));
}

/** Rows of `members` by id, the statement compiled once per list length (`compiled-statement.ts`). */
const MEMBERS_BY_ID = new CompiledListStatement(ID_LIST_PLANNED, (db, ids) =>
  db.selectFrom('members').selectAll().where('id', 'in', ids),
);

/** Members by id, any owner, in the order asked; missing ids skipped. */
export async function findMembers(db: Kysely<Database>, memberIds: readonly MemberId[]): Promise<Member[]> {
  if (memberIds.length === 0) return [];
  const rows = await MEMBERS_BY_ID.rows(db, [...new Set(memberIds)]);
  return inInputOrder(memberIds, rows.map(toMember), (member) => member.id);
}
